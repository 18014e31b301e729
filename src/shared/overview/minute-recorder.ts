import type { Collection } from 'mongodb';
import type { Registry } from 'prom-client';
import type { Clock } from '../clock';
import type { Logger } from '../logger';
import {
  CHART_NAMES,
  CHARTS,
  hourRange,
  minuteDocId,
  minuteField,
  minuteOf,
  type ChartName,
  type Counts,
  type MinuteDoc,
} from './minute-counts';

const RECORD_EVERY_MS = 5_000;
const KEEP_HOURS = 24;
const HOUR_MS = 3_600_000;

// Stores what this process's chart counters gained in each minute (minute-counts.ts), every few
// seconds and once more at stop. Counters start at zero with the process, and `writer` is new with
// each start, so nothing is counted twice or by two writers. Memory holds the minutes not yet
// written and those of the current hour.
export class MinuteRecorder {
  private last: Record<ChartName, Counts> = { leads: {}, callbacks: {} };
  // minute start (ms) → chart → counts gained in that minute.
  private readonly minutes = new Map<number, Record<ChartName, Counts>>();
  private readonly dirty = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private prunedHour = 0;

  constructor(
    private readonly registry: Registry,
    private readonly collection: Collection<MinuteDoc>,
    private readonly writer: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly everyMs = RECORD_EVERY_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.record(), this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.record();
  }

  // One reading and write at a time; a failed write stays dirty for the next.
  record(): Promise<void> {
    this.running = this.running.then(() => this.recordOnce());
    return this.running;
  }

  private async recordOnce(): Promise<void> {
    const now = this.clock.now().getTime();
    this.take(minuteOf(now), await this.totals());
    const due = [...this.dirty];
    this.dirty.clear();
    try {
      await this.write(due);
      await this.prune(now);
    } catch (err) {
      for (const minute of due) this.dirty.add(minute);
      this.logger.warn({ err: (err as Error).message }, 'could not store the overview minutes; trying again');
    }
    for (const minute of this.minutes.keys())
      if (minute < now - HOUR_MS - this.everyMs && !this.dirty.has(minute)) this.minutes.delete(minute);
  }

  // What each counter gained since the last reading, put in this minute.
  private take(minute: number, totals: Record<ChartName, Counts>): void {
    for (const chart of CHART_NAMES) {
      for (const [outcome, value] of Object.entries(totals[chart])) {
        const gained = value - (this.last[chart][outcome] ?? 0);
        if (gained <= 0) continue;
        const counts = this.minutes.get(minute) ?? { leads: {}, callbacks: {} };
        counts[chart][outcome] = (counts[chart][outcome] ?? 0) + gained;
        this.minutes.set(minute, counts);
        this.dirty.add(minute);
      }
    }
    this.last = totals;
  }

  private async write(due: number[]): Promise<void> {
    const sets = new Map<string, Record<string, number>>();
    for (const minute of due) {
      const id = minuteDocId(minute, this.writer);
      const set = sets.get(id) ?? {};
      for (const [chart, counts] of Object.entries(this.minutes.get(minute)!)) {
        for (const [outcome, n] of Object.entries(counts)) set[`charts.${chart}.${minuteField(minute)}.${outcome}`] = n;
      }
      sets.set(id, set);
    }
    if (sets.size === 0) return;
    await this.collection.bulkWrite(
      [...sets].map(([_id, $set]) => ({ updateOne: { filter: { _id }, update: { $set }, upsert: true } })),
      { ordered: false },
    );
  }

  // Once an hour, drops every process's documents older than a day: one `_id` range.
  private async prune(now: number): Promise<void> {
    const hour = Math.floor(now / HOUR_MS);
    if (hour === this.prunedHour) return;
    await this.collection.deleteMany({ _id: { $lt: hourRange(now - KEEP_HOURS * HOUR_MS, now).$gt } });
    this.prunedHour = hour;
  }

  // The chart counters summed by outcome; a counter this process does not have reads as empty.
  private async totals(): Promise<Record<ChartName, Counts>> {
    const totals: Record<ChartName, Counts> = { leads: {}, callbacks: {} };
    for (const chart of CHART_NAMES) {
      const { metric, where } = CHARTS[chart];
      const values = (await this.registry.getSingleMetric(metric)?.get())?.values ?? [];
      for (const { labels, value } of values) {
        if (!Object.entries(where).every(([label, want]) => labels[label] === want)) continue;
        const outcome = String(labels.outcome ?? 'unknown');
        totals[chart][outcome] = (totals[chart][outcome] ?? 0) + value;
      }
    }
    return totals;
  }
}

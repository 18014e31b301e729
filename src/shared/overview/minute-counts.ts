import type { Collection, Db } from 'mongodb';
import { ID_CEILING } from '../store/id-index';
import { keyPart } from '../store/list-index';

// The overview's per-minute read model (docs/managers.md, "Overview figures"): one document per
// (hour, process), `_id` `<hour>|<writer>` with the hour as `yyyy-mm-ddThh` (UTC), so the last hour of
// every process is one `_id` range. Only its own process writes a document, with absolute values, so
// a write repeated after a timeout changes nothing and no two writers race.

// The counters each chart sums by their `outcome` label, read from the writing process's registry:
// leads (partner intake requests) and callbacks (delivery outcomes, every event).
export const CHARTS = {
  leads: { metric: 'lead_intake_requests_total', where: { endpoint: 'intake' } },
  callbacks: { metric: 'lead_intake_callback_deliveries_total', where: {} },
} as const satisfies Record<string, { metric: string; where: Record<string, string> }>;

export type ChartName = keyof typeof CHARTS;
export const CHART_NAMES = Object.keys(CHARTS) as ChartName[];

// Counts by outcome.
export type Counts = Record<string, number>;

export interface MinuteDoc {
  _id: string;
  // chart → `m<minute of the hour, two digits>` → counts in that minute.
  charts: Partial<Record<ChartName, Record<string, Counts>>>;
}

export const minutesCollection = (db: Db): Collection<MinuteDoc> => db.collection<MinuteDoc>('overview_minutes');

const MINUTE_MS = 60_000;
export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS;
export const hourOf = (ms: number): string => new Date(ms).toISOString().slice(0, 13);
export const minuteField = (ms: number): string => `m${new Date(ms).toISOString().slice(14, 16)}`;
export const minuteDocId = (ms: number, writer: string): string => `${hourOf(ms)}|${keyPart(writer)}`;

// Every document of the hours from `fromMs` to `toMs` (inclusive): a bare hour sorts before every
// key that starts with it, and ID_CEILING after every writer.
export const hourRange = (fromMs: number, toMs: number): { $gt: string; $lt: string } => ({
  $gt: hourOf(fromMs),
  $lt: `${hourOf(toMs)}|${ID_CEILING}`,
});

export interface MinuteBucket {
  start: string;
  end: string;
  counts: Counts;
}

// The chart's minutes of the window ending with the minute in progress, oldest first, every
// process's counts summed; a minute nobody counted in is empty.
export function minuteBuckets(
  docs: readonly MinuteDoc[],
  chart: ChartName,
  nowMs: number,
  windowMinutes: number,
): MinuteBucket[] {
  const buckets: MinuteBucket[] = [];
  const index = new Map<string, Counts>();
  for (let start = minuteOf(nowMs) - (windowMinutes - 1) * MINUTE_MS; start <= nowMs; start += MINUTE_MS) {
    const counts: Counts = {};
    buckets.push({ start: new Date(start).toISOString(), end: new Date(start + MINUTE_MS).toISOString(), counts });
    index.set(`${hourOf(start)}|${minuteField(start)}`, counts);
  }
  for (const doc of docs) {
    const hour = doc._id.slice(0, doc._id.indexOf('|'));
    for (const [field, counts] of Object.entries(doc.charts[chart] ?? {})) {
      const into = index.get(`${hour}|${field}`);
      if (!into) continue;
      for (const [outcome, n] of Object.entries(counts)) into[outcome] = (into[outcome] ?? 0) + n;
    }
  }
  return buckets;
}

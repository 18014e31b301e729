import type { Registry } from 'prom-client';
import { keepWindow, minuteBuckets, type CounterSnapshot, type MinuteBucket } from './counter-minutes';

// The counters the overview charts, read from this process's own metrics registry: leads (partner
// intake requests by outcome) and callbacks (delivery outcomes, every event summed).
const CHARTS = {
  leads: { metric: 'lead_intake_requests_total', where: { endpoint: 'intake' } },
  callbacks: { metric: 'lead_intake_callback_deliveries_total', where: {} },
} as const satisfies Record<string, { metric: string; where: Record<string, string> }>;

export type ChartName = keyof typeof CHARTS;
export const WINDOW_MS = 60 * 60 * 1000;
const SAMPLE_EVERY_MS = 60 * 1000;

export interface Overview {
  window_minutes: number;
  // A chart whose role runs in another process stays empty here (docs/managers.md, "Manager console").
  charts: Record<ChartName, { metric: string; minutes: MinuteBucket[] }>;
}

// A snapshot of each counter a minute, kept in memory for the last hour: the overview costs no
// database read and nothing is stored. A restart starts the hour again.
export class OverviewSampler {
  private readonly snapshots: Record<ChartName, CounterSnapshot[]> = { leads: [], callbacks: [] };
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly registry: Registry, private readonly clock: () => number = Date.now) {}

  async start(): Promise<void> {
    await this.sample();
    this.timer = setInterval(() => void this.sample(), SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async overview(): Promise<Overview> {
    const charts = {} as Overview['charts'];
    for (const name of chartNames()) {
      const now = await this.read(name);
      charts[name] = { metric: CHARTS[name].metric, minutes: minuteBuckets(this.snapshots[name], now, WINDOW_MS) };
    }
    return { window_minutes: WINDOW_MS / 60000, charts };
  }

  private async sample(): Promise<void> {
    for (const name of chartNames()) {
      const snapshot = await this.read(name);
      this.snapshots[name] = keepWindow([...this.snapshots[name], snapshot], snapshot.at, WINDOW_MS);
    }
  }

  // The counter's values summed by outcome; a counter this process does not have reads as empty.
  private async read(name: ChartName): Promise<CounterSnapshot> {
    const { metric, where } = CHARTS[name];
    const totals: Record<string, number> = {};
    const values = (await this.registry.getSingleMetric(metric)?.get())?.values ?? [];
    for (const { labels, value } of values) {
      if (!Object.entries(where).every(([label, want]) => labels[label] === want)) continue;
      const outcome = String(labels.outcome ?? 'unknown');
      totals[outcome] = (totals[outcome] ?? 0) + value;
    }
    return { at: this.clock(), totals };
  }
}

const chartNames = (): ChartName[] => Object.keys(CHARTS) as ChartName[];

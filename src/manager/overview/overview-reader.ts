import type { Collection } from 'mongodb';
import type { Clock } from '../../shared/clock';
import {
  CHART_NAMES,
  CHARTS,
  hourRange,
  minuteBuckets,
  type ChartName,
  type MinuteBucket,
  type MinuteDoc,
} from '../../shared/overview/minute-counts';

export const WINDOW_MINUTES = 60;

export interface Overview {
  window_minutes: number;
  charts: Record<ChartName, { metric: string; minutes: MinuteBucket[] }>;
}

// The last hour per minute, every process's counts summed: one `_id` range over the read model
// the ingresses and dispatchers keep (src/shared/overview/minute-recorder.ts).
export async function lastHour(minutes: Collection<MinuteDoc>, clock: Clock): Promise<Overview> {
  const now = clock.now().getTime();
  const docs = await minutes.find({ _id: hourRange(now - WINDOW_MINUTES * 60_000, now) }).toArray();
  const charts = {} as Overview['charts'];
  for (const chart of CHART_NAMES)
    charts[chart] = { metric: CHARTS[chart].metric, minutes: minuteBuckets(docs, chart, now, WINDOW_MINUTES) };
  return { window_minutes: WINDOW_MINUTES, charts };
}

import type { RoleProcess } from './roles';
import { r1 } from './stats';

// Reading a role's /metrics: histograms and gauges between two reads, and the MongoDB counters.

// What a histogram counted between two reads of it.
export interface Durations {
  count: number;
  meanMs: number | null; // null: nothing counted
  over10ms: number;
  over25ms: number;
  over50ms: number;
}

export interface Histogram {
  sum: number;
  count: number;
  buckets: Map<string, number>; // cumulative count by upper bound (`le`)
}

export async function metricsText(url: string): Promise<string | null> {
  try {
    return await (await fetch(`${url}/metrics`)).text();
  } catch {
    return null;
  }
}

// A histogram of a role's /metrics, summed over the series whose labels include `labels`.
export async function histogram(url: string, name: string, labels = ''): Promise<Histogram | null> {
  return histogramIn(await metricsText(url), name, labels);
}

export function histogramIn(text: string | null, name: string, labels = ''): Histogram | null {
  if (text === null) return null;
  const h: Histogram = { sum: 0, count: 0, buckets: new Map() };
  for (const line of text.split('\n')) {
    if (!line.includes(labels)) continue;
    const value = Number(line.split(' ').pop());
    if (line.startsWith(`${name}_sum`)) h.sum += value;
    if (line.startsWith(`${name}_count`)) h.count += value;
    const le = line.startsWith(`${name}_bucket`) ? /le="([^"]+)"/.exec(line)?.[1] : undefined;
    if (le !== undefined) h.buckets.set(le, (h.buckets.get(le) ?? 0) + value);
  }
  return h;
}

// A gauge without labels from a role's /metrics text.
export function gauge(text: string | null, name: string): number | null {
  const line = text?.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? null : Number(line.split(' ').pop());
}

// The mean of what a histogram counted between two reads of it (null: nothing counted).
export function meanBetween(before: Histogram | null, after: Histogram | null): number | null {
  return before && after && after.count > before.count ? (after.sum - before.sum) / (after.count - before.count) : null;
}

export function durations(before: Histogram | null, after: Histogram | null): Durations | null {
  if (!before || !after) return null;
  const count = after.count - before.count;
  const over = (le: string) => count - ((after.buckets.get(le) ?? 0) - (before.buckets.get(le) ?? 0));
  return {
    count,
    meanMs: count === 0 ? null : r1(((after.sum - before.sum) / count) * 1000),
    over10ms: over('0.01'),
    over25ms: over('0.025'),
    over50ms: over('0.05'),
  };
}

// The roles' MongoDB counters, summed: documents written by collection, commands by command and collection.
export async function storeWork(
  roles: readonly RoleProcess[],
): Promise<{ documents: Map<string, number>; commands: Map<string, number> }> {
  const documents = new Map<string, number>();
  const commands = new Map<string, number>();
  const add = (m: Map<string, number>, key: string, n: number) => m.set(key, (m.get(key) ?? 0) + n);
  for (const role of roles) {
    for (const line of (await metricsText(role.url))?.split('\n') ?? []) {
      const m =
        /^lead_intake_mongo_(documents_written|commands)_total\{command="([^"]+)",collection="([^"]+)"\} (\S+)$/.exec(
          line,
        );
      if (!m) continue;
      if (m[1] === 'documents_written') add(documents, m[3] as string, Number(m[4]));
      else add(commands, `${m[2]} ${m[3]}`, Number(m[4]));
    }
  }
  return { documents, commands };
}

// The retry tasks that waited for their record (the dispatcher's counter), by reason.
export async function recordWaits(role: RoleProcess): Promise<Map<string, number>> {
  const waits = new Map<string, number>();
  for (const line of (await metricsText(role.url))?.split('\n') ?? []) {
    const m = /^lead_intake_callback_record_waits_total\{reason="([^"]+)"\} (\S+)$/.exec(line);
    if (m) waits.set(m[1] as string, Number(m[2]));
  }
  return waits;
}

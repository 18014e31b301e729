import type { RoleProcess } from './roles';
import { r1, r2 } from './stats';
import { topicMessages } from './topic-messages';

// Reading a role's /metrics: histograms and gauges between two reads, and the MongoDB counters; and
// the messages on the scenario's topics.

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
export interface Work {
  documents: Map<string, number>; // written, by collection
  commands: Map<string, number>; // by command and collection
  messages: Map<string, number>; // on each topic (with the environment only)
}

// The pipeline's work so far: what the roles asked of the store (their lead_intake_mongo_* counters)
// and, given the scenario's environment, the messages on its topics (topic-messages.ts).
export async function pipelineWork(roles: readonly RoleProcess[], env?: Record<string, string>): Promise<Work> {
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
  return { documents, commands, messages: env ? await topicMessages(env) : new Map() };
}

// The work between two readings divided by the leads accepted between them, each kind by its key
// (only keys that grew); nothing when no lead was accepted.
export function workPerLead(
  after: Work,
  before: Work,
  leads: number,
): {
  writesPerLead?: Record<string, number>;
  commandsPerLead?: Record<string, number>;
  messagesPerLead?: Record<string, number>;
} {
  if (leads === 0) return {};
  const perLead = (a: Map<string, number>, b: Map<string, number>) =>
    Object.fromEntries(
      [...a].map(([k, n]) => [k, r2((n - (b.get(k) ?? 0)) / leads)] as const).filter(([, n]) => n > 0),
    );
  return {
    writesPerLead: perLead(after.documents, before.documents),
    commandsPerLead: perLead(after.commands, before.commands),
    ...(after.messages.size > 0 ? { messagesPerLead: perLead(after.messages, before.messages) } : {}),
  };
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

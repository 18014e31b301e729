import type { Table } from './context';
import { monotonicUs } from './cpuprofile';
import { statusRequest, type PartnerCreds } from './leads';
import { openLoop } from './load';
import { CpuMeter, type CpuWindow, type Watched } from './proc';
import { durations, gauge, histogramIn, metricsText, type Durations } from './role-metrics';
import { r1, type Summary } from './stats';
import { EVENT_LOOP_SAMPLE_MS } from '../../src/shared/runtime';

// The status lookup step (spec 4.2) that ends the full intake pipelines.

// Status lookups at a steady rate well above what partners may send (120 a minute each).
const STATUS_RATE = 100;
const REQUEST_SECONDS = 'lead_intake_request_duration_seconds';
const GC_SECONDS = 'nodejs_gc_duration_seconds';
const LOOP_DELAY_MAX = 'nodejs_eventloop_lag_max_seconds';

export interface StatusStep {
  leadsStored: number;
  perS: number;
  latencyMs: Summary;
  generatorLagMs: Summary;
  byOutcome: Record<string, number>;
  // The ingress's own view (its request histogram): where the time of the slow lookups went.
  server: Durations | null;
  // The ingress's garbage collections during the step, and the longest its event loop was held up
  // (a pause there delays every lookup under way, so one shows as a cluster of slow lookups).
  gc: Durations | null;
  loopDelayMaxMs: number | null;
  cpu: CpuWindow;
}

// Looks up `ids` at STATUS_RATE for stepS seconds; fromUs/toUs bound the step for a CPU profile.
export async function statusLookups(a: {
  ingressUrl: string;
  ids: readonly { partner: number; externalId: string }[];
  partners: readonly PartnerCreds[];
  stepS: number;
  watched: () => Watched[];
  leadsStored: number;
}): Promise<{ status: StatusStep; fromUs: number; toUs: number }> {
  const ids = a.ids;
  let k = 0;
  // The read before also restarts the ingress's event-loop delay window (prom-client resets it on each read).
  const before = await metricsText(a.ingressUrl);
  const meter = new CpuMeter(a.watched);
  meter.start();
  const fromUs = monotonicUs();
  const lookups = await openLoop({
    baseUrl: a.ingressUrl,
    durationS: a.stepS,
    ratePerS: STATUS_RATE,
    connections: 32,
    next: () => {
      const { partner, externalId } = ids[(k++ * 7919) % ids.length] as { partner: number; externalId: string };
      return statusRequest(a.partners[partner] as PartnerCreds, externalId);
    },
  });
  const cpu = meter.stop();
  const toUs = monotonicUs();
  const after = await metricsText(a.ingressUrl);
  const server = durations(
    histogramIn(before, REQUEST_SECONDS, 'endpoint="status"'),
    histogramIn(after, REQUEST_SECONDS, 'endpoint="status"'),
  );
  const gc = durations(histogramIn(before, GC_SECONDS), histogramIn(after, GC_SECONDS));
  const loopDelayMaxMs = gauge(after, LOOP_DELAY_MAX);
  const status: StatusStep = {
    leadsStored: a.leadsStored,
    perS: lookups.completedPerS,
    latencyMs: lookups.latencyMs,
    generatorLagMs: lookups.generatorLagMs,
    byOutcome: lookups.byOutcome,
    server,
    gc,
    // The longest time between two samples of the event loop, less the sampling interval.
    loopDelayMaxMs: loopDelayMaxMs === null ? null : r1(Math.max(0, loopDelayMaxMs * 1000 - EVENT_LOOP_SAMPLE_MS)),
    cpu,
  };
  return { status, fromUs, toUs };
}

export function statusTable(s: StatusStep): Table {
  const procs = ['ingress', 'mongo-wire', 'redis', 'bench'];
  return {
    title: `Status lookups (GET /api/v1/inbound/leads/{externalId}/status), open loop at ${STATUS_RATE}/s`,
    columns: [
      'leads stored',
      'offered/s',
      'lookups/s',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'max ms',
      'gen lag p99',
      'ingress mean ms',
      'ingress >10/>25/>50 ms',
      'ingress gc n',
      'gc >10/>25/>50 ms',
      'loop delay max ms',
      ...procs.map((p) => `${p} cpu%`),
      'others cpu%',
      'outcomes',
    ],
    rows: [
      [
        s.leadsStored,
        STATUS_RATE,
        s.perS,
        s.latencyMs.p50,
        s.latencyMs.p95,
        s.latencyMs.p99,
        s.latencyMs.max,
        s.generatorLagMs.p99,
        s.server?.meanMs ?? null,
        over(s.server),
        s.gc?.count ?? null,
        over(s.gc),
        s.loopDelayMaxMs,
        ...procs.map((p) => s.cpu.perProcess[p] ?? null),
        s.cpu.othersPct,
        JSON.stringify(s.byOutcome),
      ],
    ],
    note: 'latency from each request\'s scheduled time (coordinated-omission corrected), after the intake steps have drained; quotas are raised for the benchmark partners; "gen lag" = how late the generator itself sent; "ingress" = the ingress\'s own request histogram (first byte to answer): its mean and how many lookups took longer than 10, 25 and 50 ms there; "gc" = the ingress\'s garbage collections during the step (how many, how many paused it over 10, 25 and 50 ms); "loop delay max" = the longest its event loop was held up (sampled every 100 ms: a shorter hold may read less)',
  };
}

function over(d: Durations | null): string | null {
  return d ? `${d.over10ms}/${d.over25ms}/${d.over50ms}` : null;
}

import { loadavg } from 'node:os';
import type { Runtime } from '../../src/shared/runtime';
import type { LeadEvent } from '../../src/shared/schemas';
import type { Arrival } from '../receiver';
import type { Table } from './context';
import { freePort, sleep } from './env';
import { CpuMeter, memOf, type CpuWindow, type Watched } from './proc';
import { gauge, metricsText, storeWork } from './role-metrics';
import type { Helper, RoleProcess } from './roles';
import { r1 } from './stats';

// How fast the dispatcher works off a backlog of lead events (published at once, `size` of them) for
// one partner: to an endpoint that refuses every connection (its circuit opens and the rest are
// recorded and set aside, held until it comes back), the store's commands a second while that
// endpoint stays dead and nothing new comes, then to an endpoint that answers 200 at once.
export interface BacklogDeps {
  runtime: Runtime;
  role: RoleProcess;
  receiver: Helper;
  partner(name: string, callbackUrl?: string): Promise<string>;
  event(partnerId: string): LeadEvent;
  publish(events: LeadEvent[]): Promise<void>;
  watched(): Watched[];
  log(line: string): void;
}

interface Drain {
  endpoint: string;
  events: number;
  done: number;
  seconds: number;
  perS: number;
  storeCommandsPerS: number;
  commandsPerEvent: number | null;
  byCommand: Record<string, number>; // store commands by "command collection", per event done (a second when idle)
  cpu: CpuWindow;
  peaks: Peaks;
  recordWaits: Record<string, number>; // retry tasks that waited for their record, by reason
}

// The dispatcher's largest heap in use and RSS, and the machine's load, sampled through a phase.
interface Peaks {
  heapMb: number | null;
  rssMb: number | null;
  load1: number;
}

const IDLE_S = 10;
const SAMPLE_EVERY_MS = 2000;

const commandsOf = async (role: RoleProcess): Promise<Map<string, number>> => (await storeWork([role])).commands;
const total = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

// Where the store's work went: the commands counted between two reads, by shape, each per `per`
// (events done, or seconds), the most frequent first.
function byCommand(before: Map<string, number>, after: Map<string, number>, per: number): Record<string, number> {
  const out: [string, number][] = [];
  for (const [shape, n] of after) if (n > (before.get(shape) ?? 0)) out.push([shape, n - (before.get(shape) ?? 0)]);
  out.sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(
    out.slice(0, 6).map(([shape, n]) => [shape, per > 0 ? Math.round((n / per) * 100) / 100 : n]),
  );
}

// Samples the dispatcher's heap (its /metrics) and RSS (/proc) until stopped.
function samplePeaks(role: RoleProcess): () => Peaks {
  const peaks: Peaks = { heapMb: null, rssMb: null, load1: loadavg()[0] as number };
  const max = (a: number | null, b: number | null) => (b === null ? a : Math.max(a ?? b, b));
  const sample = async () => {
    const heap = gauge(await metricsText(role.url), 'nodejs_heap_size_used_bytes');
    peaks.heapMb = max(peaks.heapMb, heap === null ? null : r1(heap / 1048576));
    peaks.rssMb = max(peaks.rssMb, memOf(role.pid)?.rssMb ?? null);
    peaks.load1 = Math.max(peaks.load1, loadavg()[0] as number);
  };
  const timer = setInterval(() => void sample(), SAMPLE_EVERY_MS);
  return () => {
    clearInterval(timer);
    return { heapMb: peaks.heapMb, rssMb: peaks.rssMb === null ? null : r1(peaks.rssMb), load1: r1(peaks.load1) };
  };
}

// The retry tasks that waited for their record (the dispatcher's counter), by reason.
async function recordWaits(role: RoleProcess): Promise<Map<string, number>> {
  const waits = new Map<string, number>();
  for (const line of (await metricsText(role.url))?.split('\n') ?? []) {
    const m = /^lead_intake_callback_record_waits_total\{reason="([^"]+)"\} (\S+)$/.exec(line);
    if (m) waits.set(m[1] as string, Number(m[2]));
  }
  return waits;
}

const shares = (m: Record<string, number>): string =>
  Object.entries(m)
    .map(([shape, n]) => `${shape} ${n}`)
    .join(', ');

async function drain(
  deps: BacklogDeps,
  endpoint: string,
  events: LeadEvent[],
  done: () => Promise<number>,
  timeoutS: number,
): Promise<Drain> {
  const meter = new CpuMeter(deps.watched);
  const commands0 = await commandsOf(deps.role);
  const waits0 = await recordWaits(deps.role);
  const peaks = samplePeaks(deps.role);
  meter.start();
  const t0 = Date.now();
  await deps.publish(events);
  let finished = 0;
  while (Date.now() - t0 < timeoutS * 1000) {
    finished = await done();
    if (finished >= events.length) break;
    await sleep(250);
  }
  const seconds = (Date.now() - t0) / 1000;
  const cpu = meter.stop();
  const commands1 = await commandsOf(deps.role);
  const commands = total(commands1) - total(commands0);
  const waits1 = await recordWaits(deps.role);
  return {
    endpoint,
    events: events.length,
    done: finished,
    seconds: r1(seconds),
    perS: r1(finished / seconds),
    storeCommandsPerS: r1(commands / seconds),
    commandsPerEvent: finished > 0 ? r1(commands / finished) : null,
    byCommand: byCommand(commands0, commands1, finished),
    cpu,
    peaks: peaks(),
    recordWaits: Object.fromEntries([...waits1].map(([k, n]) => [k, n - (waits0.get(k) ?? 0)])),
  };
}

// Each drain stops after `timeoutS` (--backlog-seconds) whatever is left.
export async function measureBacklogDrain(
  deps: BacklogDeps,
  size: number,
  timeoutS: number,
): Promise<{ data: Record<string, unknown>; table: Table }> {
  await deps.receiver.request({ type: 'reset' });
  // The dead endpoint's backlog first, so that nothing else is under way while it is set aside and
  // then while it stays dead; the healthy backlog then drains with the dead one's held beside it.
  const deadId = await deps.partner('backlog-dead', `http://127.0.0.1:${await freePort()}/dead`);
  deps.log(`dispatcher: backlog of ${size} events to an endpoint that refuses connections`);
  const deliveries = deps.runtime.mongo.collections.deliveries;
  const dead = await drain(
    deps,
    'refusing (set aside)',
    Array.from({ length: size }, () => deps.event(deadId)),
    () => deliveries.countDocuments({ partner_id: deadId }),
    timeoutS,
  );

  const idleMeter = new CpuMeter(deps.watched);
  const idle0 = await commandsOf(deps.role);
  idleMeter.start();
  await sleep(IDLE_S * 1000);
  const idleCpu = idleMeter.stop();
  const idle1 = await commandsOf(deps.role);
  const idleCommandsPerS = r1((total(idle1) - total(idle0)) / IDLE_S);
  const idleByCommand = byCommand(idle0, idle1, IDLE_S);

  const healthyId = await deps.partner('backlog-ok');
  deps.log(`dispatcher: backlog of ${size} events to a healthy endpoint`);
  const healthy = await drain(
    deps,
    'healthy (delivered)',
    Array.from({ length: size }, () => deps.event(healthyId)),
    async () =>
      (await deps.receiver.request<Arrival[]>({ type: 'arrivals' })).filter(
        (a) => a.status === 200 && a.path === '/backlog-ok',
      ).length,
    timeoutS,
  );
  const attempted = await deliveries.countDocuments({ partner_id: deadId, attempts_made: { $gt: 0 } });

  const row = (d: Drain) => [
    d.endpoint,
    d.events,
    d.done,
    d.seconds,
    d.perS,
    d.storeCommandsPerS,
    d.commandsPerEvent,
    d.cpu.perProcess.dispatcher ?? null,
    d.cpu.perProcess['mongo-wire'] ?? null,
    d.cpu.perProcess.kafka ?? null,
    d.peaks.heapMb,
    d.peaks.rssMb,
    d.peaks.load1,
  ];
  return {
    data: {
      size,
      healthy,
      dead,
      deadIdle: { seconds: IDLE_S, storeCommandsPerS: idleCommandsPerS, byCommand: idleByCommand, cpu: idleCpu },
      attempted,
    },
    table: {
      title: `Backlog drain: ${size} lead events for one partner, published at once (--backlog N)`,
      columns: [
        'endpoint',
        'events',
        'done',
        's',
        'events/s',
        'store commands/s',
        'commands/event',
        'dispatcher cpu%',
        'mongo-wire cpu%',
        'kafka cpu%',
        'dispatcher heap MB (peak)',
        'dispatcher RSS MB (peak)',
        'load1 (peak)',
      ],
      rows: [
        row(dead),
        [
          `refusing, ${IDLE_S} s idle after`,
          0,
          0,
          IDLE_S,
          0,
          idleCommandsPerS,
          null,
          idleCpu.perProcess.dispatcher ?? null,
          idleCpu.perProcess['mongo-wire'] ?? null,
          idleCpu.perProcess.kafka ?? null,
          null,
          null,
          null,
        ],
        row(healthy),
      ],
      note:
        `done: delivered (healthy) or recorded (refusing: attempted ${attempted}, the rest held behind the open circuit). ` +
        `Store commands an event, healthy: ${shares(healthy.byCommand)}; refusing: ${shares(dead.byCommand)}; ` +
        `a second while idle: ${shares(idleByCommand)}. ` +
        `Retry tasks that waited for their record, healthy: ${shares(healthy.recordWaits)}; refusing: ${shares(dead.recordWaits)}`,
    },
  };
}

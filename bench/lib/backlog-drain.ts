import { loadavg } from 'node:os';
import { EVENT_GROUP } from '../../src/dispatcher/event-consumer';
import type { Runtime } from '../../src/shared/runtime';
import type { LeadEvent } from '../../src/shared/schemas';
import type { Table } from './context';
import type { DispatcherStack } from './dispatcher-stack';
import { freePort, sleep } from './env';
import { CpuMeter, memOf } from './proc';
import { gauge, metricsText, recordWaits, pipelineWork } from './role-metrics';
import type { Helper, RoleMemory, RoleProcess } from './roles';
import { r1 } from './stats';
import { startTrickle, type Trickle } from './trickle';
import { drainTables, type Drain, type Idle, type Peaks } from './backlog-drain-tables';

// How fast the dispatcher works off a backlog of lead events (published at once, `size` of them) for
// one partner, each phase with a dispatcher, topics and database of its own, so that neither stands
// behind what the other left: to an endpoint that answers 200 at once (the healthy drain's own
// pace); then to an endpoint that refuses every connection (its circuit opens and the rest are
// recorded and set aside, held until it comes back), while another partner sends one event a second
// to a healthy endpoint (whether the backlog stalls it), and the store's commands a second while
// that endpoint stays dead and nothing new comes.
const IDLE_S = 10;

// Events the dispatcher's consumer has moved past on its (fresh) leads.events: delivered, recorded,
// or set aside in the endpoint's backlog with no record.
async function passed(rt: Runtime): Promise<number> {
  const { admin, settings, topics } = rt.consumers;
  if (!admin) throw new Error('the bench runtime has no admin client');
  const groupId = `${settings.groupPrefix}${EVENT_GROUP}`;
  const [found] = await admin.fetchOffsets({ groupId, topics: [topics.leadEvents] });
  return (found?.partitions ?? []).reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
}
const SAMPLE_EVERY_MS = 2000;

const commandsOf = async (role: RoleProcess): Promise<Map<string, number>> => (await pipelineWork([role])).commands;
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

async function drain(
  deps: DispatcherStack,
  endpoint: string,
  events: LeadEvent[],
  done: () => Promise<number>,
  timeoutS: number,
  beside?: () => () => Promise<Trickle>,
): Promise<Drain> {
  const meter = new CpuMeter(deps.watched);
  const commands0 = await commandsOf(deps.role);
  const waits0 = await recordWaits(deps.role);
  const peaks = samplePeaks(deps.role);
  meter.start();
  const t0 = Date.now();
  await deps.publish(events);
  const besideDone = beside?.();
  let finished = 0;
  while (Date.now() - t0 < timeoutS * 1000) {
    finished = await done();
    if (finished >= events.length) break;
    await sleep(250);
  }
  const seconds = (Date.now() - t0) / 1000;
  const cpu = meter.stop();
  const besideFigures = await besideDone?.();
  const commands1 = await commandsOf(deps.role);
  const commands = total(commands1) - total(commands0);
  const waits1 = await recordWaits(deps.role);
  return {
    alive: memOf(deps.role.pid) !== null,
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
    ...(besideFigures ? { beside: besideFigures } : {}),
  };
}

// Each drain stops after `timeoutS` (--backlog-seconds) whatever is left; `stack` starts a dispatcher
// of its own for a phase (its log in a folder named after the phase).
export async function measureBacklogDrain(
  stack: (phase: string) => Promise<DispatcherStack>,
  receiver: Helper,
  log: (line: string) => void,
  size: number,
  timeoutS: number,
): Promise<{ data: Record<string, unknown>; tables: Table[]; memory: Record<string, RoleMemory> }> {
  await receiver.request({ type: 'reset' });
  const memory: Record<string, RoleMemory> = {};
  const ok = await stack('backlog-healthy');
  let healthy: Drain;
  try {
    const healthyId = await ok.partner('backlog-ok', 0);
    log(`dispatcher: backlog of ${size} events to a healthy endpoint, a dispatcher of its own`);
    healthy = await drain(
      ok,
      'healthy (delivered)',
      Array.from({ length: size }, () => ok.event(healthyId)),
      () => receiver.request<number>({ type: 'ok', path: '/backlog-ok' }),
      timeoutS,
    );
  } finally {
    await ok.stop();
    memory['dispatcher (healthy backlog)'] = ok.role.memory();
  }

  const down = await stack('backlog-dead');
  let dead: Drain;
  let idle: Idle;
  let attempted: number;
  let recorded: number;
  try {
    const deadId = await down.partner('backlog-dead', 0, `http://127.0.0.1:${await freePort()}/dead`);
    const besideId = await down.partner('beside-dead', 0);
    log(`dispatcher: backlog of ${size} events to an endpoint that refuses connections, another partner beside`);
    const deliveries = down.runtime.mongo.collections.deliveries;
    dead = await drain(
      down,
      'refusing (set aside)',
      Array.from({ length: size }, () => down.event(deadId)),
      () => passed(down.runtime),
      timeoutS,
      () =>
        startTrickle(
          receiver,
          '/beside-dead',
          () => down.event(besideId),
          (e) => down.publish(e),
        ),
    );
    idle = await idleStore(down);
    attempted = await deliveries.countDocuments({ partner_id: deadId, attempts_made: { $gt: 0 } });
    recorded = await deliveries.countDocuments({ partner_id: deadId });
  } finally {
    await down.stop();
    memory['dispatcher (dead backlog)'] = down.role.memory();
  }
  const beside = dead.beside;
  return {
    data: {
      size,
      healthy,
      dead,
      deadIdle: { seconds: IDLE_S, ...idle },
      attempted,
      recorded,
    },
    memory,
    tables: drainTables({ size, healthy, dead, idle, idleS: IDLE_S, attempted, recorded, beside }),
  };
}

// The store's commands a second while the dead endpoint stays dead and nothing new comes.
async function idleStore(d: DispatcherStack): Promise<Idle> {
  const meter = new CpuMeter(d.watched);
  const before = await commandsOf(d.role);
  meter.start();
  await sleep(IDLE_S * 1000);
  const cpu = meter.stop();
  const after = await commandsOf(d.role);
  return {
    commandsPerS: r1((total(after) - total(before)) / IDLE_S),
    byCommand: byCommand(before, after, IDLE_S),
    cpu,
  };
}

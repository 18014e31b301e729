import { loadavg } from 'node:os';
import type { Runtime } from '../../src/shared/runtime';
import type { LeadEvent } from '../../src/shared/schemas';
import type { Table } from './context';
import { freePort, sleep } from './env';
import { CpuMeter, memOf, type CpuWindow, type Watched } from './proc';
import { gauge, metricsText, storeWork } from './role-metrics';
import type { Helper, RoleProcess } from './roles';
import { r1 } from './stats';
import { startTrickle, type Trickle } from './trickle';

// How fast the dispatcher works off a backlog of lead events (published at once, `size` of them) for
// one partner, each in a phase of its own: to an endpoint that answers 200 at once, with nothing else
// under way (the healthy drain's own pace); then to an endpoint that refuses every connection (its
// circuit opens and the rest are recorded and set aside, held until it comes back), while another
// partner sends one event a second to a healthy endpoint (whether the backlog stalls it); then the
// store's commands a second while the dead endpoint stays dead and nothing new comes.
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
  beside?: () => () => Promise<Trickle>,
): Promise<Drain & { beside?: Trickle }> {
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

// Each drain stops after `timeoutS` (--backlog-seconds) whatever is left.
export async function measureBacklogDrain(
  deps: BacklogDeps,
  size: number,
  timeoutS: number,
): Promise<{ data: Record<string, unknown>; tables: Table[] }> {
  await deps.receiver.request({ type: 'reset' });
  // The healthy backlog first and alone: no other partner's events before or beside it on its partitions.
  const healthyId = await deps.partner('backlog-ok');
  deps.log(`dispatcher: backlog of ${size} events to a healthy endpoint, nothing else under way`);
  const healthy = await drain(
    deps,
    'healthy, alone (delivered)',
    Array.from({ length: size }, () => deps.event(healthyId)),
    () => deps.receiver.request<number>({ type: 'ok', path: '/backlog-ok' }),
    timeoutS,
  );

  // What the healthy drain left when its time was up goes before the next phase, unmeasured: the
  // dead backlog's phase starts on empty partitions too.
  const settled = await settle(
    () => deps.receiver.request<number>({ type: 'ok', path: '/backlog-ok' }),
    size,
    timeoutS,
  );

  const deadId = await deps.partner('backlog-dead', `http://127.0.0.1:${await freePort()}/dead`);
  const besideId = await deps.partner('beside-dead');
  deps.log(`dispatcher: backlog of ${size} events to an endpoint that refuses connections, another partner beside`);
  const deliveries = deps.runtime.mongo.collections.deliveries;
  const dead = await drain(
    deps,
    'refusing (set aside)',
    Array.from({ length: size }, () => deps.event(deadId)),
    () => deliveries.countDocuments({ partner_id: deadId }),
    timeoutS,
    () => startTrickle(deps.receiver, '/beside-dead', () => deps.event(besideId), deps.publish),
  );

  const idleMeter = new CpuMeter(deps.watched);
  const idle0 = await commandsOf(deps.role);
  idleMeter.start();
  await sleep(IDLE_S * 1000);
  const idleCpu = idleMeter.stop();
  const idle1 = await commandsOf(deps.role);
  const idleCommandsPerS = r1((total(idle1) - total(idle0)) / IDLE_S);
  const idleByCommand = byCommand(idle0, idle1, IDLE_S);
  const attempted = await deliveries.countDocuments({ partner_id: deadId, attempts_made: { $gt: 0 } });

  const cpuOf = (w: CpuWindow) => [
    w.perProcess.dispatcher ?? null,
    w.perProcess['mongo-wire'] ?? null,
    w.perProcess.kafka ?? null,
    w.perProcess.receiver ?? null,
    w.othersPct,
  ];
  const row = (d: Drain) => [
    d.endpoint,
    d.events,
    d.done,
    d.seconds,
    d.perS,
    d.storeCommandsPerS,
    d.commandsPerEvent,
    ...cpuOf(d.cpu),
    d.peaks.heapMb,
    d.peaks.rssMb,
    d.peaks.load1,
  ];
  const idleRow = [`refusing, ${IDLE_S} s idle after`, 0, 0, IDLE_S, 0, idleCommandsPerS, null, ...cpuOf(idleCpu)];
  const beside = dead.beside;
  return {
    data: {
      size,
      healthy,
      dead,
      deadIdle: { seconds: IDLE_S, storeCommandsPerS: idleCommandsPerS, byCommand: idleByCommand, cpu: idleCpu },
      attempted,
      healthyRestS: settled,
    },
    tables: [
      {
        title: `Backlog drain: ${size} lead events for one partner, published at once (--backlog N), each in its own phase`,
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
          'receiver cpu%',
          'others cpu%',
          'dispatcher heap MB (peak)',
          'dispatcher RSS MB (peak)',
          'load1 (peak)',
        ],
        rows: [row(healthy), row(dead), [...idleRow, null, null, null]],
        note:
          `done: delivered (healthy) or recorded (refusing: attempted ${attempted}, the rest held behind the open circuit). ` +
          `The healthy backlog's rest took ${settled} s more, before the refusing phase. ` +
          `CPU ms an event (dispatcher/store/Kafka), healthy: ${msPerEvent(healthy)}; refusing: ${msPerEvent(dead)}. ` +
          `Store commands an event, healthy: ${shares(healthy.byCommand)}; refusing: ${shares(dead.byCommand)}; ` +
          `a second while idle: ${shares(idleByCommand)}. ` +
          `Retry tasks that waited for their record, healthy: ${shares(healthy.recordWaits)}; refusing: ${shares(dead.recordWaits)}`,
      },
      {
        title:
          'Another partner beside the dead backlog: one event a second to a healthy endpoint during the refusing phase',
        columns: ['sent', 'delivered', 'p50 ms', 'p95 ms', 'max ms', 'oldest undelivered, ms'],
        rows: [
          [
            beside?.sent ?? 0,
            beside?.delivered ?? 0,
            beside?.lagMs.p50 ?? null,
            beside?.lagMs.p95 ?? null,
            beside?.lagMs.max ?? null,
            beside?.oldestWaitingMs ?? null,
          ],
        ],
        note: "from each event's publish to its callback at the partner; undelivered: still waiting when the phase ended",
      },
    ],
  };
}

// Waits, at most `timeoutS`, until `done` reaches `size`; the seconds it took.
async function settle(done: () => Promise<number>, size: number, timeoutS: number): Promise<number> {
  const t0 = Date.now();
  while ((await done()) < size && Date.now() - t0 < timeoutS * 1000) await sleep(1000);
  return r1((Date.now() - t0) / 1000);
}

// CPU an event done, in ms, of the dispatcher, the store and Kafka: where a drain's time goes.
function msPerEvent(d: Drain): string {
  if (d.done === 0) return '-';
  const ms = (name: string) => r1((((d.cpu.perProcess[name] ?? 0) / 100) * d.cpu.seconds * 1000) / d.done);
  return ['dispatcher', 'mongo-wire', 'kafka'].map(ms).join('/');
}

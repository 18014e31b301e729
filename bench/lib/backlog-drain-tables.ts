import type { Table } from './context';
import type { CpuWindow } from './proc';
import { r1 } from './stats';
import type { Trickle } from './trickle';

// The backlog drain's tables (backlog-drain.ts): one row a phase, and the partner beside the dead one.
export interface Drain {
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
  alive: boolean; // the dispatcher still running at the end (not out of memory)
  beside?: Trickle; // another partner's trickle during the phase
}

// The dispatcher's largest heap in use and RSS, and the machine's load, sampled through a phase.
export interface Peaks {
  heapMb: number | null;
  rssMb: number | null;
  load1: number;
}

// The store's commands a second while the dead endpoint stays dead and nothing new comes.
export interface Idle {
  commandsPerS: number;
  byCommand: Record<string, number>;
  cpu: CpuWindow;
}

interface Measured {
  size: number;
  healthy: Drain;
  dead: Drain;
  idle: Idle;
  idleS: number;
  attempted: number;
  recorded: number;
  beside: Trickle | undefined;
}

export function drainTables({ size, healthy, dead, idle, idleS, attempted, recorded, beside }: Measured): Table[] {
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
  const idleRow = [`refusing, ${idleS} s idle after`, 0, 0, idleS, 0, idle.commandsPerS, null, ...cpuOf(idle.cpu)];
  return [
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
        `done: delivered (healthy), or past the dispatcher's consumer (refusing, the trickle beside included: ` +
        `${recorded} recorded, ${attempted} of them attempted; the rest set aside in the endpoint's backlog, no record each). ` +
        gone([healthy, dead]) +
        `CPU ms an event (dispatcher/store/Kafka), healthy: ${msPerEvent(healthy)}; refusing: ${msPerEvent(dead)}. ` +
        `Store commands an event, healthy: ${shares(healthy.byCommand)}; refusing: ${shares(dead.byCommand)}; ` +
        `a second while idle: ${shares(idle.byCommand)}. ` +
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
  ];
}

const shares = (m: Record<string, number>): string =>
  Object.entries(m)
    .map(([shape, n]) => `${shape} ${n}`)
    .join(', ');

// A phase whose dispatcher had died by its end (e.g. out of memory): its log says why.
const gone = (drains: Drain[]): string =>
  drains
    .filter((d) => !d.alive)
    .map((d) => `The dispatcher of "${d.endpoint}" had exited by the end of its phase (see its log). `)
    .join('');

// CPU an event done, in ms, of the dispatcher, the store and Kafka: where a drain's time goes.
function msPerEvent(d: Drain): string {
  if (d.done === 0) return '-';
  const ms = (name: string) => r1((((d.cpu.perProcess[name] ?? 0) / 100) * d.cpu.seconds * 1000) / d.done);
  return ['dispatcher', 'mongo-wire', 'kafka'].map(ms).join('/');
}

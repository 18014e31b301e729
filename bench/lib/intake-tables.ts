import type { Table } from './context';
import { byRole, type CpuPerLead } from './cpu-per-lead';
import type { LoadResult } from './load';
import type { CpuWindow } from './proc';
import { r2, type Summary } from './stats';

// The intake scenarios' tables: one step (a load level, or a soak minute) a row or a column.

export type IntakeMode = 'pipeline' | 'stored' | 'ingress' | 'soak';

export interface Step {
  label: string;
  load: Omit<LoadResult, 'accepted'>;
  cpu: CpuWindow;
  load1Before: number;
  saturated: boolean;
  backlogAfter: number | null;
  // ingress mode: from the ingress receiving a request to the stand-in reading its command
  commandDelayMs?: Summary;
  // pipeline mode: the processor's own decision time (its histogram: sum/count over the step)
  processorDecideMeanMs?: number | null;
  processorChunkMean?: number | null;
  cpuPerLead: CpuPerLead;
  rssMb: Record<string, number>; // each role's RSS at the end of the step
  // Per accepted lead during the step and its drain, summed over the roles: documents written by
  // collection, and commands sent by command and collection (their lead_intake_mongo_* counters):
  // where the store's work comes from.
  writesPerLead?: Record<string, number>;
  commandsPerLead?: Record<string, number>;
  // Kafka messages produced on each topic of the scenario, per accepted lead.
  messagesPerLead?: Record<string, number>;
}

// The soak: every minute at least 99.9% answered 200, p99 under 100 ms, memory flat.
export function soakTable(steps: Step[], rate: number): Table {
  return {
    title: `Soak: the all-in-one app with callbacks on, ${rate} leads/s offered, minute by minute (target: >= 99.9% answered 200, p99 < 100 ms, memory flat)`,
    columns: [
      'minute',
      'sent',
      'answered 200 %',
      'accepted/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'RSS MB',
      'cpu ms/lead',
      'backlog after',
      'others cpu%',
    ],
    rows: steps.map((s) => {
      const ok = (s.load.byOutcome.accepted ?? 0) + (s.load.byOutcome.duplicate ?? 0);
      return [
        s.label,
        s.load.sent,
        s.load.sent > 0 ? r2((ok / s.load.sent) * 100) : null,
        s.load.acceptedPerS,
        s.load.latencyMs.p50,
        s.load.latencyMs.p99,
        s.load.latencyMs.max,
        s.rssMb.all ?? null,
        s.cpuPerLead.service,
        s.backlogAfter,
        s.cpu.othersPct,
      ];
    }),
    note: '"answered 200" counts accepted and duplicate answers (both 200) of the requests sent in the minute; the backlog is the processor\'s intake lag after the minute',
  };
}

// The headline: what an accepted lead costs in CPU across the whole service, at each rate.
export function cpuTable(steps: Step[]): Table {
  const procs = ['all', 'ingress', 'processor', 'dispatcher', 'mongo-wire', 'kafka', 'redis', 'registry'];
  return {
    title: 'CPU ms per accepted lead (every server and role; the load generator and the receiver apart)',
    columns: [
      'load',
      'accepted/s',
      'cpu ms/lead',
      'ours',
      'ours sys',
      ...procs,
      'generator',
      'receiver',
      'others cpu%',
    ],
    rows: steps.map((s) => [
      s.label,
      s.load.acceptedPerS,
      s.cpuPerLead.service,
      s.cpuPerLead.ours,
      s.cpuPerLead.oursSystem,
      ...procs.map((p) => s.cpuPerLead.byProcess[p] ?? null),
      s.cpuPerLead.generator,
      s.cpuPerLead.receiver,
      s.cpu.othersPct,
    ]),
    note: 'CPU time of each process over the step divided by the leads accepted in it (with their callbacks where a receiver runs); "ours" = ingress, processor and dispatcher together, "ours sys" = of which in the kernel (syscalls, loopback socket writes); "others" = CPU used outside the benchmark, which skews every figure',
  };
}

// Documents written per accepted lead, by collection, summed over the roles, one column a step.
export function writesTable(steps: Step[]): Table {
  return perLeadTable(steps, (s) => s.writesPerLead, {
    title: 'Documents written per accepted lead, by collection (every role)',
    first: 'collection',
    note: "inserts, update and delete statements during the step and its drain, from the roles' lead_intake_mongo_documents_written_total, divided by the leads accepted in the step",
  });
}

// Commands (round trips) per accepted lead, by command and collection, summed over the roles.
export function commandsTable(steps: Step[]): Table {
  return perLeadTable(steps, (s) => s.commandsPerLead, {
    title: 'MongoDB commands per accepted lead, by command and collection (every role)',
    first: 'command collection',
    note: "commands sent during the step and its drain, from the roles' lead_intake_mongo_commands_total, divided by the leads accepted in the step; each is a round trip and a socket write on both sides",
  });
}

// Kafka messages per accepted lead, by topic: each is produced once and fetched and decoded by every
// consumer group of its topic.
export function messagesTable(steps: Step[]): Table {
  return perLeadTable(steps, (s) => s.messagesPerLead, {
    title: 'Kafka messages produced per accepted lead, by topic (every role)',
    first: 'topic',
    note: "messages added to each of the scenario's topics during the step and its drain (the partitions' high watermarks), divided by the leads accepted in the step",
  });
}

function perLeadTable(
  steps: Step[],
  of: (s: Step) => Record<string, number> | undefined,
  t: { title: string; first: string; note: string },
): Table {
  const measured = steps.filter((s) => of(s));
  const total = (s: Step) => Object.values(of(s) ?? {}).reduce((a, b) => a + b, 0);
  const keys = [...new Set(measured.flatMap((s) => Object.keys(of(s) ?? {})))].sort(
    (a, b) => (of(measured.at(-1) as Step)?.[b] ?? 0) - (of(measured.at(-1) as Step)?.[a] ?? 0),
  );
  return {
    title: t.title,
    columns: [t.first, ...measured.map((s) => s.label)],
    rows: [
      ['all', ...measured.map((s) => r2(total(s)))],
      ...keys.map((k) => [k, ...measured.map((s) => of(s)?.[k] ?? 0)]),
    ],
    note: t.note,
  };
}

export function stepTable(mode: IntakeMode, steps: Step[]): Table {
  const full = mode !== 'ingress';
  const procs = full
    ? ['ingress', 'processor', 'dispatcher', 'mongo-wire', 'kafka', 'bench']
    : ['ingress', 'stand-in', 'kafka', 'redis', 'bench'];
  return {
    title: full
      ? `Intake through the full pipeline${mode === 'stored' ? ' (leads already stored)' : ''}`
      : 'Intake, ingress alone (stand-in processor)',
    columns: [
      'load',
      'sent',
      'accepted/s',
      'dup',
      'other',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'max ms',
      'gen lag p99',
      ...(full ? ['decide ms', 'chunk'] : ['cmd delay p50']),
      ...procs.map((p) => `${p} cpu%`),
      'others cpu%',
      'load1',
      'sat',
    ],
    rows: steps.map((s) => {
      const o = s.load.byOutcome;
      const other = s.load.completed - (o.accepted ?? 0) - (o.duplicate ?? 0) + s.load.notSent;
      return [
        s.label,
        s.load.sent,
        s.load.acceptedPerS,
        o.duplicate ?? 0,
        other,
        s.load.latencyMs.p50,
        s.load.latencyMs.p95,
        s.load.latencyMs.p99,
        s.load.latencyMs.max,
        s.load.generatorLagMs.p99,
        ...(full ? [s.processorDecideMeanMs ?? null, s.processorChunkMean ?? null] : [s.commandDelayMs?.p50 ?? null]),
        ...procs.map((p) => byRole(s.cpu.perProcess)[p] ?? null),
        s.cpu.othersPct,
        s.load1Before,
        s.saturated ? 'yes' : '',
      ];
    }),
    note: `open-loop latency counts from the scheduled send time (coordinated-omission corrected); "other" = answers that are neither accepted nor duplicate, plus requests the generator could not send; "gen lag" = how late the generator itself sent (open loop); "decide ms" = the processor's mean time to decide, store and publish a chunk of intake commands (its own histogram); "chunk" = mean commands per chunk; "cmd delay" = ingress receipt -> command read by the stand-in; cpu% is % of one core; "others" = CPU used by processes outside the benchmark (other work on the machine skews every figure)`,
  };
}

export function lagTable(
  lag: Summary,
  byStep: { step: string; lag: Summary }[],
  callbacks: Record<string, number>,
): Table {
  return {
    title: 'Intake answer -> lead.accepted callback at the receiver (end to end)',
    columns: ['leads of', 'accepted leads', 'callbacks seen', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
    rows: [
      [
        'all steps',
        callbacks.acceptedLeads ?? 0,
        callbacks.leadAcceptedCallbacks ?? 0,
        lag.p50,
        lag.p95,
        lag.p99,
        lag.max,
      ],
      ...byStep.map(({ step, lag: l }) => [`  ${step}`, null, l.n, l.p50, l.p95, l.p99, l.max]),
    ],
  };
}

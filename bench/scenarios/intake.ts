import { join } from 'node:path';
import { consumerGroupsOf } from '../../src/shared/kafka/consumer-groups';
import { loadTopicSpecs, topicNames } from '../../src/shared/kafka/topics';
import { waitForArrivals } from '../lib/arrivals';
import { logDirOf, type BenchContext, type ScenarioResult, type Table } from '../lib/context';
import { monotonicUs, summariseProfile, type ProfileSummary } from '../lib/cpuprofile';
import { scenarioEnv, sleep } from '../lib/env';
import { LeadStream, statusRequest, type PartnerCreds } from '../lib/leads';
import { seedLeads, type Seeded } from '../lib/seed';
import { closedLoop, openLoop, type LoadResult } from '../lib/load';
import { byRole, cpuPerLead, type CpuPerLead } from '../lib/cpu-per-lead';
import { CpuMeter, load1, memOf, type CpuWindow, type Watched } from '../lib/proc';
import { memoryTable, profileTables } from '../lib/report';
import { startHelper, startRole, type Helper, type RoleMemory, type RoleProcess } from '../lib/roles';
import { consumerLag, createAgents, createPartners, dropScenario, kafkaAdmin } from '../lib/setup';
import { summarise, r1, r2, type Summary } from '../lib/stats';

// Intake benchmarks. `pipeline`: ingress, processor and dispatcher as three processes on the real
// servers (MongoDB included), callbacks to a local receiver. `stored`: the same, with --stored leads
// already in the store (seeded in bulk before the load), to show what the stored data costs.
// `ingress`: the ingress alone, with a stand-in processor that answers on the real Kafka topics
// without MongoDB: what the HTTP side, Redis and the Kafka round trip allow by themselves. The full
// pipelines end with a step of status lookups (spec 4.2).
// soak: the all-in-one app (`main.js all`) with callbacks on, at one rate for minutes on end.
export type IntakeMode = 'pipeline' | 'stored' | 'ingress' | 'soak';

interface Step {
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
}

const CLOSED_CONCURRENCY = { ingress: 64, pipeline: 24, stored: 24, soak: 24 } as const;
// Status lookups at a steady rate well above what partners may send (120 a minute each).
const STATUS_RATE = 100;
const REQUEST_SECONDS = 'lead_intake_request_duration_seconds';
const GC_SECONDS = 'nodejs_gc_duration_seconds';
const LOOP_DELAY_MAX = 'nodejs_eventloop_lag_max_seconds';

interface StatusStep {
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

// What a histogram counted between two reads of it.
interface Durations {
  count: number;
  meanMs: number | null; // null: nothing counted
  over10ms: number;
  over25ms: number;
  over50ms: number;
}

export async function intakeScenario(ctx: BenchContext, mode: IntakeMode): Promise<ScenarioResult> {
  const { opts } = ctx;
  const { env, tag } = scenarioEnv(mode, opts.logLevel, opts.roleEnv);
  const logDir = logDirOf(ctx, mode);
  const profDir = opts.profile ? join(logDir, 'profiles') : undefined;
  const roles: RoleProcess[] = [];
  const helpers: { name: string; h: Helper }[] = [];
  const steps: Step[] = [];
  const notes: string[] = [];
  let callbackLag: Summary | null = null;
  let callbackLagByStep: { step: string; lag: Summary }[] = [];
  let callbacks: Record<string, number> = {};
  const memory: Record<string, RoleMemory> = {};
  const profiles: Record<string, ProfileSummary | null> = {};
  const loadWindow = { fromUs: Infinity, toUs: 0 };
  const full = mode !== 'ingress';
  let seeded: Seeded | null = null;
  let status: StatusStep | null = null;
  try {
    ctx.log(`${mode}: starting roles (namespace ${tag})`);
    let receiver: Helper | null = null;
    if (full) {
      receiver = await startHelper('receiver', {}, logDir);
      helpers.push({ name: 'receiver', h: receiver });
    }
    // --instances N: N of each role against the one set of servers (the topics' partitions are
    // shared out among them); the load spreads over the N ingresses.
    const instances = mode === 'soak' ? 1 : opts.instances;
    const start = (role: string) =>
      Promise.all(
        Array.from({ length: instances }, (_, i) =>
          startRole(role, env, { logDir, cpuProfDir: profDir, nodeOptions: opts.nodeOptions, instance: i + 1 }),
        ),
      );
    const ingresses = await start(mode === 'soak' ? 'all' : 'ingress');
    const ingress = ingresses[0] as RoleProcess;
    const targets = ingresses.map((r) => r.url);
    roles.push(...ingresses);
    if (full && mode !== 'soak') {
      for (const role of ['processor', 'dispatcher']) roles.push(...(await start(role)));
    } else {
      helpers.push({ name: 'stand-in', h: await startHelper('stand-in-processor', env, logDir) });
    }
    const base = receiver ? await receiver.request<string>({ type: 'base' }) : null;
    const partners: PartnerCreds[] = await createPartners(
      ingress.url,
      opts.partners,
      (i) => (base ? `${base}/p${i}` : null),
      tag,
    );
    if (receiver) {
      for (const [i, p] of partners.entries())
        await receiver.request({ type: 'route', path: `/p${i}`, secret: p.callback_secret });
      await createAgents(ingress.url, 2);
    }
    if (mode === 'stored') seeded = await seedLeads(env, partners, opts.storedLeads, tag, ctx.log);
    const watched = (): Watched[] => [
      ...roles.map((r) => ({ name: r.role, pid: r.pid })),
      ...helpers.map((h) => ({ name: h.name, pid: h.h.pid })),
      ...ctx.services(),
    ];
    const stream = new LeadStream(partners, tag, opts.duplicateShare);
    const next = () => stream.next();
    const allAccepted: { lead: string; at: number; step: string }[] = [];

    // JIT, connection pools and partner caches warm, not measured.
    await closedLoop({ baseUrl: targets, next, durationS: opts.quick ? 2 : 3, concurrency: 8 });
    await drain(env, mode, 60);

    const run = async (label: string, go: () => Promise<LoadResult>, expectedPerS: number | null): Promise<Step> => {
      const meter = new CpuMeter(watched);
      const before = load1();
      const standIn = helpers.find((h) => h.name === 'stand-in')?.h;
      await standIn?.request({ type: 'stats', reset: true });
      const processor = roles.find((r) => r.role === 'processor');
      const decideBefore = processor
        ? await histogram(processor.url, 'lead_intake_processor_decision_duration_seconds')
        : null;
      const chunkBefore = processor ? await histogram(processor.url, 'lead_intake_processor_intake_chunk_size') : null;
      const storeBefore = await storeWork(roles);
      meter.start();
      const from = monotonicUs();
      const res = await go();
      if (opts.profile === 'intake') widen(loadWindow, from, monotonicUs());
      const cpu = meter.stop();
      const commandDelayMs = standIn
        ? (await standIn.request<{ commandDelayMs: Summary }>({ type: 'stats', reset: true })).commandDelayMs
        : undefined;
      const decideAfter = processor
        ? await histogram(processor.url, 'lead_intake_processor_decision_duration_seconds')
        : null;
      const processorDecideMeanMs =
        decideBefore && decideAfter && decideAfter.count > decideBefore.count
          ? r1(((decideAfter.sum - decideBefore.sum) / (decideAfter.count - decideBefore.count)) * 1000)
          : null;
      const chunkAfter = processor ? await histogram(processor.url, 'lead_intake_processor_intake_chunk_size') : null;
      const processorChunkMean =
        chunkBefore && chunkAfter && chunkAfter.count > chunkBefore.count
          ? r1((chunkAfter.sum - chunkBefore.sum) / (chunkAfter.count - chunkBefore.count))
          : null;
      // A soak goes straight on to its next minute: the backlog is only read.
      const backlog = await drain(env, mode, mode === 'soak' ? 0 : opts.quick ? 20 : 40);
      const store = await storeWork(roles);
      const { accepted, ...load } = res;
      allAccepted.push(...accepted.map((a) => ({ ...a, step: label })));
      const intakeOutcomes = (load.byOutcome.accepted ?? 0) + (load.byOutcome.duplicate ?? 0);
      const failures = load.completed - intakeOutcomes + load.notSent;
      const saturated =
        expectedPerS !== null &&
        (load.acceptedPerS < 0.8 * expectedPerS ||
          failures > 0.01 * Math.max(1, load.sent) ||
          load.latencyMs.p99 > 5000 ||
          (backlog ?? 0) > 0);
      const rssMb = Object.fromEntries(roles.map((r) => [r.role, r1(memOf(r.pid)?.rssMb ?? 0)]));
      const perLead = (after: Map<string, number>, before: Map<string, number>) =>
        accepted.length === 0
          ? undefined
          : Object.fromEntries(
              [...after]
                .map(([c, n]) => [c, r2((n - (before.get(c) ?? 0)) / accepted.length)])
                .filter(([, n]) => Number(n) > 0),
            );
      const writesPerLead = perLead(store.documents, storeBefore.documents);
      const commandsPerLead = perLead(store.commands, storeBefore.commands);
      const step: Step = {
        label,
        load,
        cpu,
        cpuPerLead: cpuPerLead(cpu, load.acceptedPerS),
        rssMb,
        ...(writesPerLead ? { writesPerLead } : {}),
        ...(commandsPerLead ? { commandsPerLead } : {}),
        load1Before: r1(before),
        saturated,
        backlogAfter: backlog,
        ...(commandDelayMs ? { commandDelayMs } : {}),
        ...(processor ? { processorDecideMeanMs, processorChunkMean } : {}),
      };
      steps.push(step);
      ctx.log(
        `${mode} ${label}: accepted ${load.acceptedPerS}/s, p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms, ` +
          `outcomes ${JSON.stringify(load.byOutcome)}${commandDelayMs ? `, command delay p50 ${commandDelayMs.p50} p99 ${commandDelayMs.p99} ms` : ''}${processor ? `, processor decide mean ${processorDecideMeanMs} ms, chunk mean ${processorChunkMean} commands` : ''}${saturated ? ' (saturated)' : ''}`,
      );
      return step;
    };

    const stepS = opts.stepS;
    // A minute at a time, so each minute's answers, latency and memory show on their own.
    if (mode === 'soak')
      for (let minute = 1; minute <= opts.soakMinutes; minute++) {
        await run(
          `minute ${minute}`,
          () => openLoop({ baseUrl: targets, next, durationS: 60, ratePerS: opts.soakRate, connections: 256 }),
          opts.soakRate * (1 - opts.duplicateShare),
        );
      }
    if (mode !== 'soak')
      await run(
        `closed c=${CLOSED_CONCURRENCY[mode]}`,
        () =>
          closedLoop({
            baseUrl: targets,
            next,
            durationS: stepS,
            concurrency: CLOSED_CONCURRENCY[mode],
          }),
        null,
      );
    const rates = mode === 'soak' ? [] : full ? opts.pipelineRates : opts.ingressRates;
    for (const rate of rates) {
      const step = await run(
        `open ${rate}/s`,
        () =>
          openLoop({
            baseUrl: targets,
            next,
            durationS: stepS,
            ratePerS: rate,
            connections: 256,
          }),
        rate * (1 - opts.duplicateShare),
      );
      if (step.saturated) {
        const skipped = rates.filter((r) => r > rate);
        if (skipped.length > 0)
          notes.push(`${mode}: stopped after ${rate}/s saturated; not run: ${skipped.join(', ')}/s`);
        break;
      }
    }

    if (receiver) {
      // End to end: from the intake answer to the lead.accepted callback at the partner.
      const want = new Map(allAccepted.map((a) => [a.lead, a]));
      let got = new Set<string>(); // leads with a lead.accepted callback, as of the last read
      const arrivals = await waitForArrivals(
        receiver,
        (all) => {
          got = new Set(all.filter((a) => a.event === 'lead.accepted').map((a) => a.lead));
          return [...want.keys()].every((l) => got.has(l));
        },
        Date.now() + (opts.quick ? 20_000 : 40_000),
        1000,
      );
      const lags: number[] = [];
      const byStep = new Map<string, number[]>(steps.map((s) => [s.label, []]));
      for (const a of arrivals) {
        const sent = a.event === 'lead.accepted' ? want.get(a.lead) : undefined;
        if (sent === undefined) continue;
        lags.push(a.t - sent.at);
        byStep.get(sent.step)?.push(a.t - sent.at);
      }
      callbackLag = summarise(lags);
      // Per step too: the dispatcher's backlog of a saturated step shows only in its own row.
      callbackLagByStep = [...byStep].filter(([, l]) => l.length > 0).map(([step, l]) => ({ step, lag: summarise(l) }));
      callbacks = {
        acceptedLeads: want.size,
        leadAcceptedCallbacks: got.size,
        allCallbacks: arrivals.length,
      };
      const counts = await receiver.request<{ badSignatures: number }>({ type: 'count' });
      if (counts.badSignatures > 0) notes.push(`receiver saw ${counts.badSignatures} callbacks with a bad signature`);
    }
    if (full && mode !== 'soak') {
      // Status lookups of leads stored before the load (stored) or sent during it (pipeline), once
      // the callbacks of the load are out (the roles are idle again).
      const ids = seeded?.externalIds ?? stream.sentExternalIds();
      let k = 0;
      // The read before also restarts the ingress's event-loop delay window (prom-client resets it on each read).
      const before = await metricsText(ingress.url);
      const meter = new CpuMeter(watched);
      meter.start();
      const from = monotonicUs();
      const lookups = await openLoop({
        baseUrl: ingress.url,
        durationS: stepS,
        ratePerS: STATUS_RATE,
        connections: 32,
        next: () => {
          const { partner, externalId } = ids[(k++ * 7919) % ids.length] as { partner: number; externalId: string };
          return statusRequest(partners[partner] as PartnerCreds, externalId);
        },
      });
      const cpu = meter.stop();
      if (opts.profile === 'status') widen(loadWindow, from, monotonicUs());
      const after = await metricsText(ingress.url);
      const server = durations(
        histogramIn(before, REQUEST_SECONDS, 'endpoint="status"'),
        histogramIn(after, REQUEST_SECONDS, 'endpoint="status"'),
      );
      const gc = durations(histogramIn(before, GC_SECONDS), histogramIn(after, GC_SECONDS));
      const loopDelayMaxMs = gauge(after, LOOP_DELAY_MAX);
      const leadsStored = (seeded?.count ?? 0) + allAccepted.length;
      status = {
        leadsStored,
        perS: lookups.completedPerS,
        latencyMs: lookups.latencyMs,
        generatorLagMs: lookups.generatorLagMs,
        byOutcome: lookups.byOutcome,
        server,
        gc,
        loopDelayMaxMs: loopDelayMaxMs === null ? null : r1(loopDelayMaxMs * 1000),
        cpu,
      };
      ctx.log(
        `${mode} status lookups (${leadsStored} leads stored): ${lookups.completedPerS}/s, p50 ${lookups.latencyMs.p50} ms, p99 ${lookups.latencyMs.p99} ms, outcomes ${JSON.stringify(lookups.byOutcome)}`,
      );
    }

    for (const r of roles) memory[r.role] = r.memory();
  } finally {
    for (const r of roles) await r.stop().catch(() => undefined);
    for (const h of helpers) await h.h.stop().catch(() => undefined);
    await dropScenario(env);
  }
  if (profDir)
    for (const r of roles) profiles[r.role] = summariseProfile(join(profDir, `${r.role}.cpuprofile`), loadWindow);

  return {
    name: mode,
    title: full
      ? `Intake, full pipeline (ingress + processor + dispatcher${opts.instances > 1 && mode !== 'soak' ? `, ${opts.instances} instances of each` : ''}, MongoDB-wire at ${env.MONGO_URL})${seeded ? `, ${seeded.count} leads already stored` : ''}`
      : 'Intake, ingress alone (stand-in processor on the real Kafka topics, no MongoDB in the decision)',
    tables: [
      ...(mode === 'soak' ? [soakTable(steps, opts.soakRate)] : []),
      ...(mode === 'ingress' ? [] : [cpuTable(steps)]),
      stepTable(mode, steps),
      ...(mode === 'ingress' ? [] : [writesTable(steps), commandsTable(steps)]),
      ...(status ? [statusTable(status)] : []),
      ...(callbackLag ? [lagTable(callbackLag, callbackLagByStep, callbacks)] : []),
      memoryTable(memory),
      ...profileTables(profiles),
    ],
    data: {
      steps,
      instances: mode === 'soak' ? 1 : opts.instances,
      memory,
      callbackLagMs: callbackLag,
      callbackLagMsByStep: callbackLagByStep,
      callbacks,
      profiles,
      partners: opts.partners,
      duplicateShare: opts.duplicateShare,
      status,
      ...(seeded ? { stored: { leads: seeded.count, seedSeconds: seeded.seconds } } : {}),
    },
    notes,
  };
}

// Waits until the processor (or stand-in) has consumed every command; returns what is left.
async function drain(env: Record<string, string>, mode: IntakeMode, maxS: number): Promise<number | null> {
  const prefix = env.TOPIC_PREFIX as string;
  const topics = topicNames(loadTopicSpecs(prefix));
  const topic = topics.intakeCommands;
  const group =
    mode !== 'ingress'
      ? consumerGroupsOf(['processor'], prefix, topics).find((g) => g.topics.includes(topic))?.group
      : `${prefix}bench-stand-in`;
  if (!group) throw new Error(`no processor consumer group reads ${topic}`);
  const deadline = Date.now() + maxS * 1000;
  const admin = kafkaAdmin(env);
  try {
    await admin.connect();
    for (;;) {
      const lag = await consumerLag(admin, group, topic);
      if (lag === 0 || Date.now() > deadline) return lag;
      await sleep(500);
    }
  } catch {
    return null;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

// The soak (issue 31): every minute at least 99.9% answered 200, p99 under 100 ms, memory flat.
function soakTable(steps: Step[], rate: number): Table {
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

// The headline (issue 31): what an accepted lead costs in CPU across the whole service, at each rate.
function cpuTable(steps: Step[]): Table {
  const procs = ['all', 'ingress', 'processor', 'dispatcher', 'mongo-wire', 'kafka', 'redis', 'registry'];
  return {
    title: 'CPU ms per accepted lead (every server and role; the load generator and the receiver apart)',
    columns: ['load', 'accepted/s', 'cpu ms/lead', ...procs, 'generator', 'receiver', 'others cpu%'],
    rows: steps.map((s) => [
      s.label,
      s.load.acceptedPerS,
      s.cpuPerLead.service,
      ...procs.map((p) => s.cpuPerLead.byProcess[p] ?? null),
      s.cpuPerLead.generator,
      s.cpuPerLead.receiver,
      s.cpu.othersPct,
    ]),
    note: 'CPU time of each process over the step divided by the leads accepted in it (with their callbacks where a receiver runs); "others" = CPU used outside the benchmark, which skews every figure',
  };
}

// Documents written per accepted lead, by collection, summed over the roles, one column a step.
function writesTable(steps: Step[]): Table {
  return perLeadTable(steps, (s) => s.writesPerLead, {
    title: 'Documents written per accepted lead, by collection (every role)',
    first: 'collection',
    note: "inserts, update and delete statements during the step and its drain, from the roles' lead_intake_mongo_documents_written_total, divided by the leads accepted in the step",
  });
}

// Commands (round trips) per accepted lead, by command and collection, summed over the roles.
function commandsTable(steps: Step[]): Table {
  return perLeadTable(steps, (s) => s.commandsPerLead, {
    title: 'MongoDB commands per accepted lead, by command and collection (every role)',
    first: 'command collection',
    note: "commands sent during the step and its drain, from the roles' lead_intake_mongo_commands_total, divided by the leads accepted in the step; each is a round trip and a socket write on both sides",
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

// The roles' MongoDB counters, summed: documents written by collection, commands by command and collection.
async function storeWork(
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

function stepTable(mode: IntakeMode, steps: Step[]): Table {
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

function statusTable(s: StatusStep): Table {
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
    note: 'latency from each request\'s scheduled time (coordinated-omission corrected), after the intake steps have drained; quotas are raised for the benchmark partners; "gen lag" = how late the generator itself sent; "ingress" = the ingress\'s own request histogram (first byte to answer): its mean and how many lookups took longer than 10, 25 and 50 ms there; "gc" = the ingress\'s garbage collections during the step (how many, how many paused it over 10, 25 and 50 ms); "loop delay max" = the longest its event loop was held up',
  };
}

// The profile window: from the first profiled step's start to the last one's end.
function widen(window: { fromUs: number; toUs: number }, fromUs: number, toUs: number): void {
  window.fromUs = Math.min(window.fromUs, fromUs);
  window.toUs = Math.max(window.toUs, toUs);
}

function durations(before: Histogram | null, after: Histogram | null): Durations | null {
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

function over(d: Durations | null): string | null {
  return d ? `${d.over10ms}/${d.over25ms}/${d.over50ms}` : null;
}

function lagTable(lag: Summary, byStep: { step: string; lag: Summary }[], callbacks: Record<string, number>): Table {
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

async function metricsText(url: string): Promise<string | null> {
  try {
    return await (await fetch(`${url}/metrics`)).text();
  } catch {
    return null;
  }
}

// A histogram of a role's /metrics, summed over the series whose labels include `labels`.
async function histogram(url: string, name: string, labels = ''): Promise<Histogram | null> {
  return histogramIn(await metricsText(url), name, labels);
}

function histogramIn(text: string | null, name: string, labels = ''): Histogram | null {
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
function gauge(text: string | null, name: string): number | null {
  const line = text?.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? null : Number(line.split(' ').pop());
}

interface Histogram {
  sum: number;
  count: number;
  buckets: Map<string, number>; // cumulative count by upper bound (`le`)
}

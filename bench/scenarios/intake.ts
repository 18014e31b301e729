import { join } from 'node:path';
import { callbackLags } from '../lib/callback-lag';
import { logDirOf, type BenchContext, type ScenarioResult } from '../lib/context';
import { monotonicUs, summariseProfile, type ProfileSummary } from '../lib/cpuprofile';
import { cpuPerLead } from '../lib/cpu-per-lead';
import { scenarioEnv } from '../lib/env';
import { drain } from '../lib/intake-backlog';
import {
  commandsTable,
  cpuTable,
  lagTable,
  messagesTable,
  soakTable,
  stepTable,
  writesTable,
  type IntakeMode,
  type Step,
} from '../lib/intake-tables';
import { LeadStream, type PartnerCreds } from '../lib/leads';
import { seedLeads, type Seeded } from '../lib/seed';
import { closedLoop, openLoop, type LoadResult } from '../lib/load';
import { perfTables, PerfRecorder, type PerfSummary } from '../lib/perf-record';
import { CpuMeter, load1, memOf, type Watched } from '../lib/proc';
import { memoryTable, profileTables } from '../lib/report';
import { histogram, meanBetween, pipelineWork, workPerLead } from '../lib/role-metrics';
import { startHelper, startRole, type Helper, type RoleMemory, type RoleProcess } from '../lib/roles';
import { createAgents, createPartners, dropScenario } from '../lib/setup';
import { statusLookups, statusTable, type StatusStep } from '../lib/status-lookups';
import { r1, type Summary } from '../lib/stats';

const CLOSED_CONCURRENCY = { ingress: 64, pipeline: 24, stored: 24, soak: 24 } as const;

// Intake benchmarks. `pipeline`: ingress, processor and dispatcher as three processes on the real
// servers (MongoDB included), callbacks to a local receiver. `stored`: the same, with --stored leads
// already in the store (seeded in bulk before the load), to show what the stored data costs.
// `ingress`: the ingress alone, with a stand-in processor that answers on the real Kafka topics
// without MongoDB: what the HTTP side, Redis and the Kafka round trip allow by themselves. The full
// pipelines end with a step of status lookups (spec 4.2).
// soak: the all-in-one app (`main.js all`) with callbacks on, at one rate for minutes on end.

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
  const perf = opts.perf && full && mode !== 'soak' ? new PerfRecorder(join(logDir, 'perf')) : null;
  let perfSummaries: Record<string, PerfSummary | null> = {};
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
      const workBefore = await pipelineWork(roles, full ? env : undefined);
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
      const decideMean = meanBetween(decideBefore, decideAfter);
      const processorDecideMeanMs = decideMean === null ? null : r1(decideMean * 1000);
      const chunkAfter = processor ? await histogram(processor.url, 'lead_intake_processor_intake_chunk_size') : null;
      const chunkMean = meanBetween(chunkBefore, chunkAfter);
      const processorChunkMean = chunkMean === null ? null : r1(chunkMean);
      // A soak goes straight on to its next minute: the backlog is only read.
      const backlog = await drain(env, mode, mode === 'soak' ? 0 : opts.quick ? 20 : 40);
      const work = await pipelineWork(roles, full ? env : undefined);
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
      const step: Step = {
        label,
        load,
        cpu,
        cpuPerLead: cpuPerLead(cpu, load.acceptedPerS),
        rssMb,
        ...workPerLead(work, workBefore, accepted.length),
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
    perf?.start(roles);
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

    if (perf) perfSummaries = await perf.stop();
    if (receiver) {
      const lags = await callbackLags(
        receiver,
        allAccepted,
        steps.map((s) => s.label),
        Date.now() + (opts.quick ? 20_000 : 40_000),
      );
      callbackLag = lags.lag;
      callbackLagByStep = lags.byStep;
      callbacks = lags.callbacks;
      if (lags.badSignatures > 0) notes.push(`receiver saw ${lags.badSignatures} callbacks with a bad signature`);
    }
    if (full && mode !== 'soak') {
      // Status lookups of leads stored before the load (stored) or sent during it (pipeline), once
      // the callbacks of the load are out (the roles are idle again).
      const lookups = await statusLookups({
        ingressUrl: ingress.url,
        ids: seeded?.externalIds ?? stream.sentExternalIds(),
        partners,
        stepS,
        watched,
        leadsStored: (seeded?.count ?? 0) + allAccepted.length,
      });
      if (opts.profile === 'status') widen(loadWindow, lookups.fromUs, lookups.toUs);
      status = lookups.status;
      ctx.log(
        `${mode} status lookups (${status.leadsStored} leads stored): ${status.perS}/s, p50 ${status.latencyMs.p50} ms, p99 ${status.latencyMs.p99} ms, outcomes ${JSON.stringify(status.byOutcome)}`,
      );
    }

    for (const r of roles) memory[r.role] = r.memory();
  } finally {
    await perf?.stop();
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
      ...(mode === 'ingress' ? [] : [writesTable(steps), commandsTable(steps), messagesTable(steps)]),
      ...(status ? [statusTable(status)] : []),
      ...(callbackLag ? [lagTable(callbackLag, callbackLagByStep, callbacks)] : []),
      memoryTable(memory),
      ...profileTables(profiles),
      ...perfTables(perfSummaries),
    ],
    data: {
      steps,
      instances: mode === 'soak' ? 1 : opts.instances,
      memory,
      callbackLagMs: callbackLag,
      callbackLagMsByStep: callbackLagByStep,
      callbacks,
      profiles,
      perf: perfSummaries,
      partners: opts.partners,
      duplicateShare: opts.duplicateShare,
      status,
      ...(seeded ? { stored: { leads: seeded.count, seedSeconds: seeded.seconds } } : {}),
    },
    notes,
  };
}

// The profile window: from the first profiled step's start to the last one's end.
function widen(window: { fromUs: number; toUs: number }, fromUs: number, toUs: number): void {
  window.fromUs = Math.min(window.fromUs, fromUs);
  window.toUs = Math.max(window.toUs, toUs);
}

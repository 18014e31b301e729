import { join } from 'node:path';
import type { Consumer } from 'kafkajs';
import { RETRY_TIERS } from '../../src/shared/kafka/topics';
import type { DeliveryTask, LeadEvent } from '../../src/shared/schemas';
import { readTaskHeaders } from '../../src/dispatcher/delivery-task';
import { waitForArrivals } from '../lib/arrivals';
import { measureBacklogDrain } from '../lib/backlog-drain';
import { startDispatcherStack, type DispatcherStack } from '../lib/dispatcher-stack';
import { measureManualRetries } from '../lib/manual-retry';
import { logDirOf, type BenchContext, type ScenarioResult, type Table } from '../lib/context';
import { monotonicUs, summariseProfile, type ProfileSummary } from '../lib/cpuprofile';
import { sleep } from '../lib/env';
import { CpuMeter, type CpuWindow } from '../lib/proc';
import { memoryTable, profileTables } from '../lib/report';
import { startHelper, type Helper, type RoleMemory } from '../lib/roles';
import { retriesTable, retryLateness } from '../lib/retry-lateness';
import { r1, summarise } from '../lib/stats';
import type { Arrival } from '../receiver';

// The dispatcher as its own process on the real servers: lead events published straight onto its
// topic, callbacks to the local receiver. (1) Retries: partners whose endpoint fails the first 3
// attempts of every event, with CALLBACK_RETRY_DELAYS_S=1,2,3,4; each retry's lateness is its
// arrival at the receiver minus the due time the dispatcher wrote on the retry task (x-due-at,
// read from the retry topics by a probe consumer): exact, on one clock, negative if early.
// (2) Manual retries: dead deliveries retried by a manager, one at a time, timed to their attempt.
// (3) Throughput: a burst of events for partners that answer 200 at once. (4) Backlog drains
// (--backlog N events), each alone: to a healthy endpoint, to one that refuses connections (another
// partner's trickle beside it), then the store's commands a second while it stays dead.
const DELAYS_S = [1, 2, 3, 4];
const FAIL_FIRST = 3;
const ROLE_ENV = {
  CALLBACK_RETRY_DELAYS_S: DELAYS_S.join(','),
  // Per endpoint: above the retry and manual partners' failures in a row (at most 100), well below
  // a dead endpoint's backlog.
  ENDPOINT_CIRCUIT_FAILURES: '200',
};

const ok = (arrivals: Arrival[]): Arrival[] => arrivals.filter((a) => a.status === 200);

export async function dispatcherScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { opts } = ctx;
  const logDir = logDirOf(ctx, 'dispatcher');
  const profDir = opts.profile ? join(logDir, 'profiles') : undefined;
  const helpers: Helper[] = [];
  let stack: DispatcherStack | null = null;
  let probe: Consumer | null = null;
  const notes: string[] = [];
  const data: Record<string, unknown> = { retryDelaysS: DELAYS_S, failFirst: FAIL_FIRST };
  const tables: Table[] = [];
  const loadWindow = { fromUs: 0, toUs: 0 };
  try {
    const receiver = await startHelper('receiver', {}, logDir);
    helpers.push(receiver);
    stack = await startDispatcherStack(ctx, receiver, { env: ROLE_ENV, logDir, cpuProfDir: profDir });
    const { runtime, config, role, partner, event, publish, watched } = stack;

    // Due times of every retry task, by delivery id and attempt.
    const due = new Map<string, number>();
    probe = runtime.kafka.consumer({ groupId: `${config.kafka.topicPrefix}bench-probe`, maxWaitTimeInMs: 100 });
    const joined = new Promise<void>((resolve) => probe?.on(probe.events.GROUP_JOIN, () => resolve()));
    await probe.connect();
    await probe.subscribe({ topics: RETRY_TIERS.map((k) => runtime.topics[k]), fromBeginning: true });
    await probe.run({
      eachMessage: async ({ topic, message }) => {
        const timing = readTaskHeaders(message.headers);
        const tier = RETRY_TIERS.find((k) => runtime.topics[k] === topic);
        if (!timing || !tier) return;
        const task = await runtime.codec.decode<DeliveryTask>(tier, message.value);
        due.set(`${task.delivery_id}#${timing.attempt}`, timing.dueAt);
      },
    });
    await joined;

    // (1) Retries, at a steady rate.
    const retryPartners = await Promise.all([0, 1, 2, 3].map((i) => partner(`retry${i}`, FAIL_FIRST)));
    const retryEvents = opts.quick ? 20 : 60;
    const retryRate = 5;
    ctx.log(
      `dispatcher: ${retryEvents} events at ${retryRate}/s, each failing ${FAIL_FIRST} times (delays ${DELAYS_S.join(',')} s)`,
    );
    const retryMeter = new CpuMeter(watched);
    retryMeter.start();
    const t0 = Date.now();
    const sentEvents: LeadEvent[] = [];
    for (let i = 0; i < retryEvents; i++) {
      const e = event(retryPartners[i % retryPartners.length] as string);
      sentEvents.push(e);
      await publish([e]);
      await sleep(Math.max(0, t0 + ((i + 1) * 1000) / retryRate - Date.now()));
    }
    const expectedOk = retryEvents;
    const deadline = Date.now() + 60_000 + DELAYS_S.slice(0, FAIL_FIRST).reduce((a, b) => a + b, 0) * 1000;
    const arrivals = await waitForArrivals(receiver, (all) => ok(all).length >= expectedOk, deadline, 500);
    const retryCpu = retryMeter.stop();
    const { lateness, latenessByAttempt, missingDue, repeated, incomplete } = retryLateness({
      arrivals,
      retryPartners,
      due,
      failFirst: FAIL_FIRST,
      delaysS: DELAYS_S,
    });
    const delivered = ok(arrivals).length;
    const retries = {
      events: retryEvents,
      delivered,
      retryAttemptsMeasured: lateness.length,
      missingDueTimes: missingDue,
      deliveriesWithRepeatedAttempts: repeated,
      deliveriesIncomplete: incomplete,
      early: lateness.filter((x) => x < 0).length,
      overOneSecondLate: lateness.filter((x) => x > 1000).length,
      latenessMs: summarise(lateness),
      latenessByAttemptMs: Object.fromEntries(Object.entries(latenessByAttempt).map(([k, v]) => [k, summarise(v)])),
      cpu: retryCpu,
    };
    data.retries = retries;
    if (delivered < expectedOk)
      notes.push(`retries: only ${delivered} of ${expectedOk} deliveries succeeded within the wait`);
    if (repeated > 0)
      notes.push(
        `retries: ${repeated} deliveries had an attempt sent more than once (lease lost or swept after an error): not measured`,
      );
    if (missingDue > 0)
      notes.push(
        `retries: ${missingDue} attempts without a due time on the retry topics (recovered by the sweeper?): not measured`,
      );
    ctx.log(
      `dispatcher retries: ${lateness.length} retry attempts, lateness p50 ${retries.latenessMs.p50} ms, max ${retries.latenessMs.max} ms, early ${retries.early}`,
    );
    tables.push(
      retriesTable(
        `Dispatcher retries (CALLBACK_RETRY_DELAYS_S=${DELAYS_S.join(',')}; ${retryEvents} events at ${retryRate}/s, each failing ${FAIL_FIRST} times)`,
        retries,
        retryCpu,
      ),
    );

    // (2) Manual retries: deliveries dead after every scheduled attempt, retried by a manager.
    const manualPartner = await partner('manual', DELAYS_S.length + 1);
    const manualEvents = Array.from({ length: opts.quick ? 5 : 20 }, () => event(manualPartner));
    await publish(manualEvents);
    const manual = await measureManualRetries(runtime, receiver, '/manual', manualPartner, manualEvents, DELAYS_S);
    data.manualRetries = manual;
    ctx.log(
      `dispatcher manual retries: ${manual.attempted} of ${manual.deliveries}, p50 ${manual.latencyMs.p50} ms, max ${manual.latencyMs.max} ms`,
    );
    if (manual.attempted < manual.deliveries)
      notes.push(
        `manual retries: only ${manual.attempted} of ${manual.deliveries} dead deliveries were attempted within 10 s of their retry`,
      );
    tables.push({
      title: 'Manual retry of a dead delivery (target: its attempt within 1 s)',
      columns: ['retried', 'attempted', 'p50 ms', 'p95 ms', 'max ms'],
      rows: [[manual.deliveries, manual.attempted, manual.latencyMs.p50, manual.latencyMs.p95, manual.latencyMs.max]],
      note: "from the manager's retry (DispatcherCommands.retry, as POST /api/deliveries/{id}/retry) to the attempt's arrival at the partner",
    });

    // (3) Throughput: a burst for partners that answer 200.
    await receiver.request({ type: 'reset' });
    const okPartners = await Promise.all(Array.from({ length: 10 }, (_, i) => partner(`ok${i}`, 0)));
    const burst = opts.quick ? 1500 : 5000;
    const windowS = opts.quick ? 10 : 20;
    const events = Array.from({ length: burst }, (_, i) => event(okPartners[i % okPartners.length] as string));
    ctx.log(`dispatcher: burst of ${burst} events, measured for up to ${windowS} s`);
    const meter = new CpuMeter(watched);
    const published = Date.now();
    meter.start();
    loadWindow.fromUs = monotonicUs();
    await publish(events);
    const end = Date.now() + (windowS + 5) * 1000;
    const seen = ok(
      await waitForArrivals(
        receiver,
        (all) => {
          const delivered = ok(all);
          const firstAt = delivered[0]?.t;
          return delivered.length >= burst || (firstAt !== undefined && Date.now() - firstAt > windowS * 1000);
        },
        end,
        500,
      ),
    );
    const cpu: CpuWindow = meter.stop();
    loadWindow.toUs = monotonicUs();
    const times = seen.map((a) => a.t).sort((a, b) => a - b);
    const first = times[0] ?? published;
    const inWindow = times.filter((t) => t - first <= windowS * 1000);
    const last = inWindow[inWindow.length - 1] ?? first;
    const span = Math.max(0.001, (last - first) / 1000);
    const throughput = {
      published: burst,
      delivered: seen.length,
      windowS: r1(span),
      deliveriesPerS: r1(inWindow.length / span),
      firstCallbackAfterMs: Math.round(first - published),
      cpu,
    };
    data.throughput = throughput;
    ctx.log(
      `dispatcher throughput: ${throughput.deliveriesPerS} deliveries/s (${inWindow.length} in ${throughput.windowS} s)`,
    );
    tables.push({
      title:
        'Dispatcher throughput: burst of lead events -> callbacks to a fast local receiver (MongoDB records included)',
      columns: [
        'published',
        'delivered in window',
        'window s',
        'deliveries/s',
        'dispatcher cpu%',
        'mongo-wire cpu%',
        'kafka cpu%',
        'receiver cpu%',
        'others cpu%',
      ],
      rows: [
        [
          burst,
          inWindow.length,
          throughput.windowS,
          throughput.deliveriesPerS,
          cpu.perProcess.dispatcher ?? null,
          cpu.perProcess['mongo-wire'] ?? null,
          cpu.perProcess.kafka ?? null,
          cpu.perProcess.receiver ?? null,
          cpu.othersPct,
        ],
      ],
    });
    // (4) Backlogs: how fast one drains to a healthy endpoint and to a dead one, and the store's work
    // meanwhile, each with a dispatcher and topics of its own (behind nothing the other left).
    const memory: Record<string, RoleMemory> = { dispatcher: role.memory() };
    await probe.disconnect();
    probe = null;
    await stack.stop();
    stack = null;
    const backlog = await measureBacklogDrain(
      (phase) => startDispatcherStack(ctx, receiver, { env: ROLE_ENV, logDir: join(logDir, phase) }),
      receiver,
      ctx.log,
      opts.backlog,
      opts.backlogSeconds,
    );
    data.backlog = backlog.data;
    tables.push(...backlog.tables);
    data.memory = { ...memory, ...backlog.memory };
    tables.push(memoryTable(data.memory as Record<string, RoleMemory>));
  } finally {
    await probe?.disconnect().catch(() => undefined);
    await stack?.stop();
    for (const h of helpers) await h.stop().catch(() => undefined);
  }
  if (profDir) {
    const profiles: Record<string, ProfileSummary | null> = {
      dispatcher: summariseProfile(join(profDir, 'dispatcher.cpuprofile'), loadWindow),
    };
    data.profiles = profiles;
    tables.push(...profileTables(profiles));
  }
  return { name: 'dispatcher', title: 'Dispatcher', tables, data, notes };
}

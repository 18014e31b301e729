import type { Config, RedisConfig, ReplayConfig } from '../shared/config';
import { everyInterval } from '../shared/periodic-task';
import type { Redis } from '../shared/redis/client';
import type { RoleClients, RoleHandle } from '../shared/role';
import { BlockStore } from './lead-owner/block-store';
import { BacklogStore } from './lead-owner/backlog-store';
import { committedOffset, PartitionReader } from '../shared/kafka/partition-reader';
import type { LeadEvent } from '../shared/schemas';
import { closeWireAgents } from './delivery-wire';
import { DeliveryAttempts } from './delivery-attempt';
import { DeliveryScheduler } from './delivery-scheduler';
import { DeliveryStore } from './delivery-store';
import { DeliveryTopics } from './delivery-topics';
import { EndpointCircuits } from './endpoint-circuits';
import { EndpointGate } from './endpoint-gate';
import { EndpointHold } from './endpoint-hold';
import { EndpointHealthTracker } from './endpoint-health-tracker';
import { Background } from '../shared/background';
import { startEndpointKeeper } from './endpoint-keeper';
import { EVENT_GROUP, startEventConsumer } from './event-consumer';
import { LeadOwner } from './lead-owner';
import { dispatcherMetrics } from './metrics';
import { RecordBatcher } from './lead-owner/lead-writes';
import { ReplayRunner } from './replay-runner';
import { retrySchedule, type RetrySchedule } from './retry-policy';
import type { CircuitRules } from './circuit-breaker';
import { MembershipLease } from '../shared/kafka/membership-lease';
import { ListIndex } from '../shared/store/list-index';
import { systemClock } from '../shared/clock';
import { AlertEvents } from '../alerts/commands';

// How often paused endpoints are read again, in case the announcement of a resume was missed.
const PAUSED_REFRESH_MS = 30_000;

// An endpoint's circuit: open after a run of failures, a probe after each retry delay, at most ENDPOINT_CIRCUIT_OPEN_S;
// a probe not answered within two attempts' timeouts (withheld) is given up.
function circuitRules(
  callbacks: Config['callbacks'],
  endpoints: Config['endpoints'],
  schedule: RetrySchedule,
): CircuitRules {
  return {
    failuresToOpen: endpoints.circuitFailures,
    waitBeforeProbeMs: (probes) =>
      Math.min(
        schedule.waitBefore(Math.min(probes, schedule.maxAttempts - 2) + 2).delayMs,
        endpoints.circuitOpenS * 1000,
      ),
    probeTimeoutMs: 2 * callbacks.timeoutMs,
  };
}

// What the dispatcher is given (src/role-deps.ts builds it): the clients it uses and its settings.
export interface DispatcherDeps extends RoleClients {
  config: Pick<Config, 'serviceName' | 'callbacks' | 'endpoints'> & {
    replay: Pick<ReplayConfig, 'ratePerS'>;
    redis: Pick<RedisConfig, 'prefix'>; // names the channel endpoint pauses and resumes are announced on
  };
  subscriber: Redis; // hears those announcements (redis publishes them)
}

// The callback dispatcher: lead events in, signed callbacks out, with tiered retry topics, a dead
// topic and a delivery record per (event, partner) in MongoDB.
export async function startDispatcher(d: DispatcherDeps): Promise<RoleHandle> {
  const logger = d.logger.child({ role: 'dispatcher' });
  const cfg = d.config.callbacks;
  const schedule = retrySchedule(cfg.retryDelaysS);
  const clock = systemClock;
  const store = new DeliveryStore(
    d.mongo.collections.deliveries,
    new ListIndex(d.mongo.collections.deliveryList),
    clock,
  );
  const topics = new DeliveryTopics({ producer: d.producer, codec: d.codec, topics: d.topics });
  let owner: LeadOwner | null = null;
  const gate = new EndpointGate(d.mongo.collections.endpointHealth, `${d.config.redis.prefix}endpoint-changed`, logger);
  await gate.start(d.subscriber);
  const circuits = new EndpointCircuits(circuitRules(cfg, d.config.endpoints, schedule), clock, logger);
  const hold = new EndpointHold(gate, circuits);
  const alerts = new AlertEvents({ producer: d.producer, codec: d.codec, topics: d.topics });
  const alertsOut = new Background();
  circuits.onTurn((endpoint, to) =>
    alertsOut.run(
      () => alerts.endpoint(endpoint, to === 'open' ? 'circuit_opened' : 'circuit_closed', clock.now()),
      (err) => logger.warn({ endpoint, err: (err as Error).message }, 'could not publish a circuit alert'),
    ),
  );
  const metrics = dispatcherMetrics(d.metrics, {
    blockedLeads: () => owner?.blockedLeads() ?? 0,
    endpointBacklogs: () => owner?.endpointBacklogs() ?? 0,
    pausedEndpoints: () => gate.pausedCount(),
    circuits: () => circuits.counts(),
  });
  const batcher = new RecordBatcher(store, logger, metrics);
  const health = new EndpointHealthTracker();
  const scheduler = new DeliveryScheduler(
    {
      concurrency: cfg.concurrency,
      perPartnerConcurrency: cfg.perPartnerConcurrency,
      maxQueuedPerPartner: cfg.maxQueuedPerPartner,
    },
    (err, job) =>
      logger.error(
        { delivery_id: job.deliveryId, err: (err as Error).message },
        'delivery attempt failed; its offset stays uncommitted',
      ),
  );
  const attempts = new DeliveryAttempts({
    partners: d.partners,
    health,
    circuits,
    callbacks: cfg,
    serviceName: d.config.serviceName,
    schedule,
    topics,
    metrics,
    logger,
    clock,
  });
  // The event consumer's lease on its partitions: a dispatcher that was frozen or cut off from Kafka
  // for most of a session starts and records nothing more until it has joined again.
  const lease = MembershipLease.forSession(d.consumers.settings.sessionTimeoutMs);
  const leadOwner = new LeadOwner({
    partners: d.partners,
    hold,
    store,
    blocks: new BlockStore(d.mongo.collections.deliveryBlocks, d.mongo.collections.blockEpochs, clock),
    backlogStore: new BacklogStore(d.mongo.collections.deliveryBacklogs, clock),
    committed: (partition) => committedOffset(d.consumers, EVENT_GROUP, 'leadEvents', partition),
    batcher,
    scheduler,
    attempts,
    topics,
    schedule,
    metrics,
    logger,
    clock,
    lease,
  });
  owner = leadOwner;
  const replays = new ReplayRunner({
    jobs: d.mongo.collections.replayJobs,
    store,
    topics,
    ratePerS: d.config.replay.ratePerS,
    logger,
    clock,
  });
  const kafka = { ...d.consumers, logger };
  // Endpoints' backlogs are read back beside the event consumer, by a reader of their own.
  const backlogReader = new PartitionReader<LeadEvent>(
    kafka,
    'dispatcher-backlogs',
    'leadEvents',
    (partition, records) => leadOwner.replay.take(partition, records),
  );
  leadOwner.attachReader(backlogReader);

  const testSends = new Background();
  const started: { stop(): Promise<void> }[] = [];
  const stopStarted = async (err: unknown) => {
    await Promise.allSettled([replays.stop(), backlogReader.stop(), ...started.map((c) => c.stop())]);
    throw err;
  };
  // A hand-over (a rebalance, a stop) waits for the attempts under way and their records as long as
  // the consumer's lease holds (assignment-work.ts); an attempt is bounded by the callback timeout.
  const events = await startEventConsumer(kafka, leadOwner, lease, metrics, logger, clock).catch(stopStarted);
  started.push(events);
  const endpoints = await startEndpointKeeper(kafka, {
    health: d.mongo.collections.endpointHealth,
    audit: d.mongo.collections,
    gate,
    publisher: d.redis,
    replays,
    testSends,
    topics,
    alerts,
    testCallbacks: { callbacks: cfg, serviceName: d.config.serviceName, partners: d.partners },
    rule: { pauseAfterMs: d.config.endpoints.pauseAfterS * 1000, minFailures: d.config.endpoints.pauseMinFailures },
    metrics,
    logger,
    clock,
  }).catch(stopStarted);
  // Health reports: what this dispatcher saw of each endpoint, to its keeper, in one produce request.
  const sendReports = () =>
    health.report(leadOwner.heldForPausedEndpoints(), async (reports) => {
      const at = new Date().toISOString();
      await topics.endpointCommands(
        [...reports].map(([partnerId, report]) => ({ kind: 'health' as const, partner_id: partnerId, at, report })),
      );
    });
  const reporter = everyInterval('endpoint health reports', d.config.endpoints.healthReportMs, sendReports, logger);
  const pausedRefresh = everyInterval('paused endpoints', PAUSED_REFRESH_MS, () => gate.refreshPaused(), logger);

  return {
    name: 'dispatcher',
    readiness: [
      { ...events.readiness, name: 'dispatcher-events' },
      { ...endpoints.readiness, name: 'dispatcher-endpoints' },
    ],
    // Each consumer stops taking work, lets the attempts under way finish (each bounded by the
    // timeout), writes their records and commits them while still in its group, then leaves it:
    // the dispatcher that takes its partitions finds them recorded and sends nothing twice.
    async stop() {
      await Promise.allSettled([
        replays.stop(),
        backlogReader.stop(),
        events.stop(),
        endpoints.stop(),
        reporter.stop(),
        pausedRefresh.stop(),
      ]);
      await testSends.settled(); // the endpoint consumer has stopped: no test starts any more
      await alertsOut.settled();
      await scheduler.drain();
      await batcher.drain();
      // The attempts since the last report count too.
      await sendReports().catch((err: unknown) =>
        logger.warn({ err: (err as Error).message }, 'could not send the last endpoint health reports'),
      );
      await closeWireAgents();
      circuits.stop();
    },
  };
}

import type { Collection } from 'mongodb';
import { systemActor, writeAudit, type AuditCollections } from '../shared/audit';
import {
  startBatchConsumer,
  type BatchConsumer,
  type BatchConsumerDeps,
  type Decoded,
  type BatchContext,
} from '../shared/kafka/batch-consumer';
import type { Background } from '../shared/background';
import type { Logger } from '../shared/logger';
import type { EndpointHealthDoc } from '../shared/mongo/documents';
import type { Redis } from '../shared/redis/client';
import { untilDone } from '../shared/retriable';
import type { EndpointCommand } from '../shared/schemas';
import { replyTo, type DeliveryTopics } from './delivery-topics';
import type { EndpointGate } from './endpoint-gate';
import { applyReport, emptyHealth, paused, resumed, shouldPause, type PauseRule } from './endpoint-health';
import type { DispatcherMetrics } from './metrics';
import { replayJobOf, type ReplayRunner } from './replay-runner';
import { sendTestCallback, sendTestPostback, type TestCallbackDeps } from './test-callback';
import type { Clock } from '../shared/clock';
import { endpointOwner } from '../shared/delivery-kind';
import type { AlertEvents } from '../alerts/commands';

// Ids per `_id: {$in}` read: within what the local store serves from its _id index (src/shared/store/id-index.ts).
const IN_CHUNK = 100;

// The dispatcher's own actor in the audit log.
export const DISPATCHER_ACTOR = systemActor('system:dispatcher');

export interface EndpointKeeperDeps {
  health: Collection<EndpointHealthDoc>;
  audit: AuditCollections;
  gate: EndpointGate;
  publisher: Redis;
  replays: ReplayRunner;
  testSends: Background; // test callbacks and postbacks under way, which a stop waits for
  testCallbacks: TestCallbackDeps;
  topics: DeliveryTopics;
  alerts: AlertEvents; // tells the partner's people of a pause or a resume
  rule: PauseRule;
  metrics: DispatcherMetrics;
  logger: Logger;
  clock: Clock;
}

// The one writer of each partner's endpoint_health and replay jobs: callbacks.endpoints is keyed by
// partner id, so one dispatcher applies every report, resume, replay and test callback of a
// partner, in order, and replies to the manager that waits for a replay or a test callback. A batch costs one
// read ($in by _id, per 100 partners) and one write per partner, however many attempts the reports sum up. When an
// endpoint's state changes it says so on Redis (every dispatcher's gate reads it again), and a pause
// is written to the audit log and counted.
export async function startEndpointKeeper(kafka: BatchConsumerDeps, deps: EndpointKeeperDeps): Promise<BatchConsumer> {
  const generations = new Map<number, number>();
  return startBatchConsumer<EndpointCommand>(kafka, {
    group: 'dispatcher-endpoints',
    topics: ['endpointCommands'],
    fromBeginning: true,
    assigned: () => deps.replays.handOver(),
    handle: async (records, ctx) => {
      if (generations.get(ctx.partition) !== ctx.generation) {
        generations.set(ctx.partition, ctx.generation);
        await untilDone(() => deps.replays.resumePartition(ctx.partition), retrying(deps.logger, 'resume replay jobs'));
      }
      await applyCommands(deps, records, ctx);
    },
    undecodable: async (items, ctx) => {
      for (const item of items) {
        deps.metrics.undecodable.inc({ topic: 'endpoint_commands' });
        deps.logger.error(
          { topic: ctx.topic, partition: ctx.partition, offset: item.message.offset, reason: item.error.reason },
          'skipped an undecodable endpoint command',
        );
      }
    },
  });
}

async function applyCommands(
  deps: EndpointKeeperDeps,
  records: Decoded<EndpointCommand>[],
  ctx: BatchContext,
): Promise<void> {
  const { health, logger } = deps;
  const commands = records.map((r) => r.value);
  // A replay's job is stored before it runs (again after a crash: it is kept as first stored).
  const jobs = commands.flatMap((c) => replayJobOf(c, deps.clock.now()) ?? []);
  if (jobs.length > 0) await untilDone(() => deps.replays.create(jobs), retrying(logger, 'store replay jobs'));
  const byPartner = new Map<string, EndpointCommand[]>();
  for (const command of commands)
    byPartner.set(command.partner_id, [...(byPartner.get(command.partner_id) ?? []), command]);
  const ids = [...byPartner.keys()];
  const docs = new Map<string, EndpointHealthDoc>();
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const chunk = ids.slice(i, i + IN_CHUNK);
    const stored = await untilDone(
      () => health.find({ _id: { $in: chunk } }).toArray(),
      retrying(logger, 'read endpoint health'),
    );
    for (const d of stored) docs.set(d._id, d);
  }
  for (const [partnerId, partnerCommands] of byPartner) {
    const before = docs.get(partnerId) ?? emptyHealth(partnerId, deps.clock.now());
    let doc = before;
    for (const command of partnerCommands) doc = apply(deps, doc, command, ctx.partition);
    const changed = doc.state !== before.state;
    // Told before it is written: a crash in between tells again rather than never.
    if (changed) await noteChange(deps, before, doc);
    await untilDone(
      () => health.replaceOne({ _id: partnerId }, doc, { upsert: true }),
      retrying(logger, 'write endpoint health'),
    );
    if (changed)
      await untilDone(
        () => deps.gate.announce(deps.publisher, partnerId),
        retrying(logger, 'announce an endpoint change'),
      );
    deps.metrics.endpointConsecutiveFailures.set({ partner_id: partnerId }, doc.consecutive_failures);
    if (doc.last_success_at)
      deps.metrics.endpointLastSuccess.set({ partner_id: partnerId }, doc.last_success_at.getTime() / 1000);
  }
  await deps.topics.replies(
    commands.flatMap((c) => (c.kind === 'replay' ? replyTo(c, { kind: 'replay', outcome: 'created' }) : [])),
    logger,
  );
}

function apply(
  deps: EndpointKeeperDeps,
  doc: EndpointHealthDoc,
  command: EndpointCommand,
  partition: number,
): EndpointHealthDoc {
  const at = new Date(command.at);
  if (command.kind === 'health' && command.report) {
    const next = applyReport(doc, command.report, at);
    return shouldPause(next, deps.rule) ? paused(next, deps.clock.now()) : next;
  }
  if (command.kind === 'resume') return doc.state === 'paused' ? resumed(doc, at) : doc;
  if (command.kind === 'replay' && command.job_id) deps.replays.start(command.job_id, partition);
  if (command.kind === 'test_callback' || command.kind === 'test_postback') {
    const kind = command.kind;
    deps.testSends.run(
      () => sendTest(deps, command, kind),
      (err: unknown) =>
        deps.logger.error({ partner_id: command.partner_id, kind, err: (err as Error).message }, 'test failed'),
    );
  }
  return doc;
}

// Sent beside the batch, not in it: an attempt may take the whole callback timeout, and nothing
// of it is stored. A keeper that dies meanwhile leaves the manager to its reply timeout.
async function sendTest(
  deps: EndpointKeeperDeps,
  command: EndpointCommand,
  kind: 'test_callback' | 'test_postback',
): Promise<void> {
  const test =
    kind === 'test_callback'
      ? await sendTestCallback(deps.testCallbacks, command.partner_id)
      : await sendTestPostback(deps.testCallbacks, command.partner_id, command.event ?? 'lead.accepted');
  await deps.topics.replies(
    replyTo(command, test ? { kind, outcome: 'sent', test } : { kind, outcome: 'not_found' }),
    deps.logger,
  );
}

async function noteChange(deps: EndpointKeeperDeps, before: EndpointHealthDoc, doc: EndpointHealthDoc): Promise<void> {
  const { logger, metrics } = deps;
  if (doc.state === 'paused') {
    metrics.endpointPauses.inc({ partner_id: doc._id });
    logger.warn(
      { partner_id: doc._id, consecutive_failures: doc.consecutive_failures, failing_since: doc.failing_since },
      'endpoint paused after sustained failure',
    );
    const { partnerId, kind } = endpointOwner(doc._id);
    await untilDone(
      () =>
        writeAudit(
          deps.audit,
          DISPATCHER_ACTOR,
          'endpoint.paused',
          {
            partnerId,
            details: {
              kind,
              consecutive_failures: doc.consecutive_failures,
              failing_since: doc.failing_since,
              last_failure_at: doc.last_failure_at,
              gone: doc.gone_at !== null,
            },
          },
          deps.clock,
        ),
      retrying(logger, 'audit a pause'),
    );
  } else {
    logger.info({ partner_id: doc._id, paused_at: before.paused_at }, 'endpoint resumed');
  }
  const kind = doc.state === 'paused' ? 'endpoint_paused' : 'endpoint_resumed';
  await untilDone(
    () => deps.alerts.endpoint(doc._id, kind, doc.updated_at),
    retrying(logger, 'publish an endpoint alert'),
  );
}

function retrying(logger: Logger, what: string) {
  return (err: unknown, attempt: number) =>
    logger.warn({ what, attempt, err: (err as Error).message }, 'endpoint keeper: call failed; trying again');
}

import {
  startBatchConsumer,
  type BatchConsumer,
  type BatchConsumerDeps,
  type Decoded,
} from '../shared/kafka/batch-consumer';
import type { MembershipLease } from '../shared/kafka/membership-lease';
import { RETRY_TIERS, type TopicKey } from '../shared/kafka/topics';
import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import type { DeliveryCommand, DeliveryTask, LeadEvent } from '../shared/schemas';
import { readTaskHeaders } from './delivery-task';
import { dueAction } from './due-gate';
import type { LeadOwner } from './lead-owner';
import type { DispatcherMetrics } from './metrics';

export const EVENT_GROUP = 'dispatcher';

// Offsets a partition may have handed out and not committed: bounds the memory a slow partner can take.
const MAX_UNCOMMITTED = 2000;

// A retry task due within the fetch wait and this much more is held in memory instead of pausing its
// partition: more than one fetch round trip, so that a partition resumed that long before the due
// time has its task back in hand before then.
const HOLD_BEYOND_FETCH_MS = 3000;

const isTier = (topic: TopicKey): boolean => RETRY_TIERS.includes(topic);

type Input = LeadEvent | DeliveryCommand | DeliveryTask;

// Lead events, delivery commands and the retry tiers, co-partitioned by lead id: one owner per lead
// (lead-owner/), which holds its retries too. A batch is handed over and the consumer moves on; an
// offset is committed once its record exists. A tier partition is in due order (one delay per
// topic), so when its head is not due the partition is paused, and resumed with a seek back to that
// task shortly before it is: the other partitions keep flowing meanwhile.
export async function startEventConsumer(
  kafka: BatchConsumerDeps,
  owner: LeadOwner,
  lease: MembershipLease,
  metrics: DispatcherMetrics,
  logger: Logger,
  clock: Clock,
): Promise<BatchConsumer> {
  // The fetch wait every consumer at rest has (not the pausing consumers' short one): a paused tier
  // partition is resumed a hold window ahead, so it need not be fetched sooner.
  const fetchWaitMs = kafka.settings.fetchMaxWaitMs;
  const holdWindowMs = fetchWaitMs + HOLD_BEYOND_FETCH_MS;
  return startBatchConsumer<Input>(kafka, {
    group: EVENT_GROUP,
    topics: ['leadEvents', 'callbackCommands', ...RETRY_TIERS],
    coPartitioned: true,
    consumer: { maxWaitTimeInMs: fetchWaitMs },
    // Retries waiting for room at a slow partner never hold a batch that leads.events needs.
    pauseWhenFull: isTier,
    // Never early: a task not due within the hold window pauses its partition until it nearly is.
    admit: (message, topic) => {
      if (!isTier(topic)) return 0;
      const timing = readTaskHeaders(message.headers);
      if (!timing) return 0;
      const action = dueAction(timing.dueAt, clock.now().getTime(), holdWindowMs);
      return action.kind === 'pause' ? action.resumeInMs : 0;
    },
    commit: 'recorded',
    maxUncommitted: MAX_UNCOMMITTED,
    lease,
    // From the beginning for a new group: an event published before the first start is still owed.
    fromBeginning: true,
    // Held leads are read back as soon as a partition is assigned: a quiet partition's held
    // callbacks must still go when their endpoint resumes (that news comes through Redis, not here).
    assigned: (assignment) => owner.assigned(assignment.leadEvents ?? []),
    // Before every rebalance and at a stop: the attempts under way are recorded before another
    // dispatcher may take their partitions.
    handOver: () => owner.handOver(),
    handle: (records, ctx) =>
      ctx.topic === 'leadEvents'
        ? owner.events(records as Decoded<LeadEvent>[], ctx)
        : ctx.topic === 'callbackCommands'
          ? owner.commands(records as Decoded<DeliveryCommand>[], ctx)
          : owner.retries(records as Decoded<DeliveryTask>[], ctx),
    undecodable: async (items, ctx) => {
      for (const item of items) {
        metrics.undecodable.inc({ topic: metricTopic(ctx.topic) });
        logger.error(
          { topic: ctx.topic, partition: ctx.partition, offset: item.message.offset, reason: item.error.reason },
          'skipped an undecodable message',
        );
      }
    },
  });
}

const metricTopic = (topic: TopicKey): string =>
  topic === 'leadEvents' ? 'lead_events' : topic === 'callbackCommands' ? 'callback_commands' : topic;

import {
  startBatchConsumer,
  type BatchConsumer,
  type BatchConsumerDeps,
  type Decoded,
} from '../shared/kafka/batch-consumer';
import type { MembershipLease } from '../shared/kafka/membership-lease';
import type { Logger } from '../shared/logger';
import type { DeliveryCommand, LeadEvent } from '../shared/schemas';
import type { LeadOwner } from './lead-owner';
import type { DispatcherMetrics } from './metrics';

export const EVENT_GROUP = 'dispatcher';

// Offsets a partition may have handed out and not committed: bounds the memory a slow partner can take.
const MAX_UNCOMMITTED = 2000;

// Lead events and delivery commands, co-partitioned by lead id: one owner per lead (lead-owner/).
// A batch is handed over and the consumer moves on; an offset is committed once its record exists.
export async function startEventConsumer(
  kafka: BatchConsumerDeps,
  owner: LeadOwner,
  lease: MembershipLease,
  metrics: DispatcherMetrics,
  logger: Logger,
): Promise<BatchConsumer> {
  return startBatchConsumer<LeadEvent | DeliveryCommand>(kafka, {
    group: EVENT_GROUP,
    topics: ['leadEvents', 'callbackCommands'],
    coPartitioned: true,
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
        : owner.commands(records as Decoded<DeliveryCommand>[], ctx),
    undecodable: async (items, ctx) => {
      for (const item of items) {
        metrics.undecodable.inc({ topic: ctx.topic === 'leadEvents' ? 'lead_events' : 'callback_commands' });
        logger.error(
          { topic: ctx.topic, partition: ctx.partition, offset: item.message.offset, reason: item.error.reason },
          'skipped an undecodable message',
        );
      }
    },
  });
}

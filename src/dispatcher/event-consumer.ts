import { startBatchConsumer, type BatchConsumer, type BatchConsumerDeps, type Decoded } from '../shared/kafka/batch-consumer';
import type { Logger } from '../shared/logger';
import type { DeliveryCommand, LeadEvent } from '../shared/schemas';
import type { LeadOwner } from './lead-owner';
import type { DispatcherMetrics } from './metrics';

// Offsets a partition may have handed out and not committed: bounds the memory a slow partner can take.
const MAX_UNCOMMITTED = 2000;
// With a gather time, a fetch returns early only once this much is there (a burst, a backlog).
const GATHER_MIN_BYTES = 1 << 20;

// Lead events and delivery commands, co-partitioned by lead id: one owner per lead (lead-owner.ts).
// A batch is handed over and the consumer moves on; an offset is committed once its record exists.
// A fetch waits up to gatherMs for company (CALLBACK_GATHER_MS): each chunk's store commands (the records'
// existence check, their insert, their list entries) then serve several leads instead of one or two.
export async function startEventConsumer(kafka: BatchConsumerDeps, owner: LeadOwner, gatherMs: number, handOverMs: number, metrics: DispatcherMetrics, logger: Logger): Promise<BatchConsumer> {
  return startBatchConsumer<LeadEvent | DeliveryCommand>(kafka, {
    group: 'dispatcher',
    topics: ['leadEvents', 'callbackCommands'],
    coPartitioned: true,
    commit: 'recorded',
    maxUncommitted: MAX_UNCOMMITTED,
    ...(gatherMs > 0 ? { consumer: { minBytes: GATHER_MIN_BYTES, maxWaitTimeInMs: gatherMs } } : {}),
    // From the beginning for a new group: an event published before the first start is still owed.
    fromBeginning: true,
    // Held leads are read back as soon as a partition is assigned: a quiet partition's held
    // callbacks must still go when their endpoint resumes (that news comes through Redis, not here).
    assigned: (assignment) => owner.assigned(assignment.leadEvents ?? []),
    // Before every rebalance and at a stop: the attempts under way are recorded before another
    // dispatcher may take their partitions.
    handOver: () => owner.handOver(handOverMs),
    handle: (records, ctx) => ctx.topic === 'leadEvents'
      ? owner.events(records as Decoded<LeadEvent>[], ctx)
      : owner.commands(records as Decoded<DeliveryCommand>[], ctx),
    undecodable: async (items, ctx) => {
      for (const item of items) {
        metrics.undecodable.inc({ topic: ctx.topic === 'leadEvents' ? 'lead_events' : 'callback_commands' });
        logger.error({ topic: ctx.topic, partition: ctx.partition, offset: item.message.offset, reason: item.error.reason }, 'skipped an undecodable message');
      }
    },
  });
}

import type { Producer } from 'kafkajs';
import { startBatchConsumer, type BatchConsumer, type BatchConsumerDeps } from '../shared/kafka/batch-consumer';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import type { LeadCommand } from '../shared/schemas';
import { dueAtOf } from './idle-checks';

export interface IdleCheckForwarderDeps {
  consumers: BatchConsumerDeps;
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
  logger: Logger;
}

// The delay line of idle checks: `leads.idle-checks` holds them in due order per partition (one delay
// for all), so a partition whose head is not due is paused until it is, and a due check is put on
// `leads.commands` for the lead's owner, the one writer of the lead, which decides. Keeps no state
// and reads no lead: what waits is in Kafka, not in a collection to scan.
export function startIdleCheckForwarder(deps: IdleCheckForwarderDeps): Promise<BatchConsumer> {
  return startBatchConsumer<LeadCommand>(deps.consumers, {
    group: 'processor-idle-checks',
    topics: ['idleChecks'],
    admit: (message) => Math.max(0, dueAtOf(message.headers) - Date.now()),
    // A partition resumed when its head is due is fetched once the fetch under way ends: a check of
    // a lead idle for IDLE_REDISTRIBUTION_S (minutes) may be that late, and the group at rest
    // fetches as seldom as every other (a pausing consumer fetches every second otherwise).
    consumer: { maxWaitTimeInMs: deps.consumers.settings.fetchMaxWaitMs },
    async handle(records) {
      const messages = await Promise.all(
        records.map(async (r) => ({ key: r.value.lead_id, value: await deps.codec.encode('leadCommands', r.value) })),
      );
      if (messages.length > 0)
        await deps.producer.sendBatch({ topicMessages: [{ topic: deps.topics.leadCommands, messages }] });
    },
    async undecodable(items) {
      // Only the processor writes here; an undecodable check is a bug to see, not to retry.
      for (const { message, error } of items)
        deps.logger.error({ offset: message.offset, reason: error.reason }, 'undecodable idle check skipped');
    },
  });
}

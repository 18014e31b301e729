import type { KafkaMessage, Message, Producer } from 'kafkajs';
import {
  startBatchConsumer,
  type BatchConsumer,
  type BatchConsumerDeps,
  type BatchContext,
  type Decoded,
} from '../../shared/kafka/batch-consumer';
import type { TopicCodec } from '../../shared/kafka/codec';
import type { TopicNames } from '../../shared/kafka/topics';
import type { Logger } from '../../shared/logger';
import { testLabel } from '../../shared/mongo/documents';
import type { AgentAction, LeadCommand } from '../../shared/schemas';
import { announcementMessages } from '../announcement-messages';
import { deadLetterMessage } from '../dead-letter';
import type { IdleChecks } from '../idle-checks';
import type { Lifecycle, LifecycleMessage } from './index';
import { withoutNote } from './records';
import type { ProcessorMetrics } from '../metrics';
import type { Clock } from '../../shared/clock';

export interface LifecycleConsumerDeps {
  consumers: BatchConsumerDeps;
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
  lifecycle: Lifecycle;
  idleChecks: IdleChecks;
  metrics: ProcessorMetrics;
  logger: Logger;
  clock: Clock;
}

const LABEL = { agentActions: 'agent_actions', deposits: 'deposits', leadCommands: 'lead_commands' } as const;
type LifecycleTopic = keyof typeof LABEL;

// The lead's one owner: reads the CRM topics and the lead command topic co-partitioned (partition p
// of all three to one member), applies a chunk, then publishes its events, assignment feed messages,
// idle checks and dead letters in one produce request before the offsets move. Nothing a CRM sends
// can crash or block it: undecodable bytes, an unknown lead or a move the status catalogue forbids
// go to the dead-letter topic.
export async function startLifecycleConsumer(deps: LifecycleConsumerDeps): Promise<BatchConsumer> {
  const { metrics, topics } = deps;
  const publish = async (
    dead: Message[],
    said: { topic: string; messages: Message[] }[] = [],
    checks: Message[] = [],
  ): Promise<void> => {
    const topicMessages = [
      ...said,
      { topic: topics.crmDeadLetter, messages: dead },
      { topic: topics.idleChecks, messages: checks },
    ].filter((t) => t.messages.length > 0);
    if (topicMessages.length > 0) await deps.producer.sendBatch({ topicMessages });
  };
  const label = (ctx: BatchContext) => LABEL[ctx.topic as LifecycleTopic];
  // What a dead letter keeps of a refused message: its bytes as they came, but an agent action
  // encoded again without its note (names and numbers; the CRM's own topic has it).
  const keptMessage = async (record: Decoded<LifecycleMessage>): Promise<KafkaMessage> =>
    record.topic !== 'agentActions'
      ? record.message
      : { ...record.message, value: await deps.codec.encode('agentActions', withoutNote(record.value as AgentAction)) };

  return startBatchConsumer<LifecycleMessage>(deps.consumers, {
    group: 'processor-crm',
    topics: ['agentActions', 'deposits', 'leadCommands'],
    coPartitioned: true,
    // Partition p of each topic is one partition of leads: what this owner keeps in memory is bound to it.
    assigned: (assignment, generation) =>
      deps.lifecycle.assigned(new Set(Object.values(assignment).flat()), generation),
    async handle(records, ctx) {
      const now = deps.clock.now();
      const chunk = await deps.lifecycle.apply(records, ctx, now);
      const said = await announcementMessages(deps.codec, topics, chunk);
      const dead = await Promise.all(
        chunk.refused.map(async ({ record, reason, partition }) =>
          deadLetterMessage(
            topics[record.topic],
            partition ?? ctx.partition,
            await keptMessage(record),
            reason,
            reason,
            now,
          ),
        ),
      );
      await publish(dead, said, await deps.idleChecks.messages(chunk.idle, now));
      for (const e of chunk.events) metrics.leadEvents.inc({ event: e.event, test: testLabel(e.test) });
      const commands = (kind: LeadCommand['kind'], outcome: string) =>
        chunk.outcomes.filter(
          (o) =>
            o.record.topic === 'leadCommands' && (o.record.value as LeadCommand).kind === kind && o.outcome === outcome,
        ).length;
      const assigned = commands('assign', 'applied');
      const erased = commands('erase', 'applied');
      if (erased > 0) metrics.erasures.inc(erased);
      if (assigned > 0) metrics.assignments.inc({ outcome: 'assigned' }, assigned);
      const idle = {
        reassigned: commands('reassign_idle', 'applied'),
        kept: chunk.kept,
        moot: commands('reassign_idle', 'unchanged') - chunk.kept,
      };
      for (const [outcome, n] of Object.entries(idle)) if (n > 0) metrics.idleReassignments.inc({ outcome }, n);
      for (const { record, outcome } of chunk.outcomes)
        metrics.crmMessages.inc({
          topic: LABEL[record.topic as LifecycleTopic],
          outcome: outcome === 'refused' ? 'dead_lettered' : outcome,
        });
      for (const { record, reason } of chunk.refused)
        metrics.crmDeadLetters.inc({ topic: LABEL[record.topic as LifecycleTopic], reason });
    },
    async undecodable(items, ctx) {
      const now = deps.clock.now();
      const dead = items.map(({ message, error }) => {
        const reason = error.reason === 'not_wire_format' ? 'malformed_message' : 'schema_violation';
        metrics.crmDeadLetters.inc({ topic: label(ctx), reason });
        metrics.crmMessages.inc({ topic: label(ctx), outcome: 'dead_lettered' });
        return deadLetterMessage(topics[ctx.topic], ctx.partition, message, reason, error.message, now);
      });
      await publish(dead);
    },
  });
}

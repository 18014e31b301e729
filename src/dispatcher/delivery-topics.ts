import type { Producer } from 'kafkajs';
import type { TopicCodec } from '../shared/kafka/codec';
import { RETRY_TIERS, type TopicKey, type TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import { untilDone } from '../shared/retriable';
import type { CallbackReply, DeliveryCommand, DeliveryTask, EndpointCommand } from '../shared/schemas';
import { taskHeaders, type TaskTiming } from './delivery-task';

export interface DeliveryTopicsDeps {
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
}

// What the dispatcher publishes: retry tasks (keyed by lead id: a tier is read with leads.events,
// co-partitioned, by the lead's owner) and dead ones (keyed by delivery id), commands to a lead's owner (keyed by lead id
// on callbacks.commands) and to an endpoint's keeper (keyed by partner id on callbacks.endpoints),
// and the outcome of a manager's command to the instance waiting for it (keyed by reply_to).
export class DeliveryTopics {
  constructor(private readonly deps: DeliveryTopicsDeps) {}

  async task(topic: TopicKey, task: DeliveryTask, timing: TaskTiming): Promise<void> {
    const { producer, codec, topics } = this.deps;
    await producer.send({
      topic: topics[topic],
      messages: [{ key: taskKey(topic, task), value: await codec.encode(topic, task), headers: taskHeaders(timing) }],
    });
  }

  async command(command: DeliveryCommand): Promise<void> {
    await this.commands([command]);
  }

  async commands(commands: readonly DeliveryCommand[]): Promise<void> {
    if (commands.length === 0) return;
    const { producer, codec, topics } = this.deps;
    const messages = await Promise.all(
      commands.map(async (c) => ({ key: c.lead_id, value: await codec.encode('callbackCommands', c) })),
    );
    await producer.send({ topic: topics.callbackCommands, messages });
  }

  async endpointCommands(commands: readonly EndpointCommand[]): Promise<void> {
    if (commands.length === 0) return;
    const { producer, codec, topics } = this.deps;
    const messages = await Promise.all(
      commands.map(async (c) => ({ key: c.partner_id, value: await codec.encode('endpointCommands', c) })),
    );
    await producer.send({ topic: topics.endpointCommands, messages });
  }

  // The manager waits for these; a reply lost here is a timeout there (what was done stands), so a
  // failed send is logged, not retried.
  async replies(replies: readonly CallbackReply[], logger: Logger): Promise<void> {
    if (replies.length === 0) return;
    const { producer, codec, topics } = this.deps;
    try {
      const messages = await Promise.all(
        replies.map(async (r) => ({ key: r.reply_to, value: await codec.encode('callbackReplies', r) })),
      );
      await producer.send({ topic: topics.callbackReplies, messages });
    } catch (err) {
      logger.warn({ replies: replies.length, err: (err as Error).message }, 'could not reply to manager commands');
    }
  }
}

export const taskKey = (topic: TopicKey, task: DeliveryTask): string =>
  RETRY_TIERS.includes(topic) ? task.event.lead_id : task.delivery_id;

// The reply to a manager's command, when it asked for one (its reply_to and correlation id).
export function replyTo(
  command: { reply_to?: string; correlation_id?: string },
  outcome: Omit<CallbackReply, 'reply_to' | 'correlation_id'>,
): CallbackReply[] {
  return command.reply_to && command.correlation_id
    ? [{ reply_to: command.reply_to, correlation_id: command.correlation_id, ...outcome }]
    : [];
}

// A publish the delivery cannot go on without (its token, or the release of its lead): tried until
// it goes through, while the offset that started it stays uncommitted, or until `wanted` says its
// work was handed over (false: given up; the next owner publishes its own).
export async function published(
  logger: Logger,
  what: string,
  publish: () => Promise<void>,
  wanted: () => boolean = () => true,
): Promise<boolean> {
  try {
    await untilDone(
      publish,
      (err, attempt) => logger.warn({ what, attempt, err: (err as Error).message }, 'could not publish; trying again'),
      wanted,
    );
    return true;
  } catch (err) {
    if (wanted()) throw err;
    logger.warn({ what }, 'publish given up: its work was handed over');
    return false;
  }
}

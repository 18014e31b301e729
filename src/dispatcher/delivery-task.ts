import type { IHeaders, Producer } from 'kafkajs';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicKey, TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import { untilDone } from '../shared/retriable';
import type { CallbackReply, DeliveryCommand, DeliveryTask, EndpointCommand } from '../shared/schemas';

// DeliveryTask messages on the retry and dead topics, keyed by delivery id. When the task is due
// (epoch ms) and which attempt it is for travel in headers, so a retry consumer can decide to wait
// without decoding the value. On the dead topic x-attempt is the last attempt made. A retry task is
// the token of its delivery: its holder is the only writer of the record until it ends or hands on.
export const DUE_AT_HEADER = 'x-due-at';
export const ATTEMPT_HEADER = 'x-attempt';

export interface TaskTiming {
  dueAt: number;
  attempt: number;
}

export function taskHeaders(timing: TaskTiming): Record<string, string> {
  return { [DUE_AT_HEADER]: String(timing.dueAt), [ATTEMPT_HEADER]: String(timing.attempt) };
}

export function readTaskHeaders(headers: IHeaders | undefined): TaskTiming | null {
  const dueAt = headerNumber(headers?.[DUE_AT_HEADER]);
  const attempt = headerNumber(headers?.[ATTEMPT_HEADER]);
  return dueAt === null || attempt === null ? null : { dueAt, attempt };
}

function headerNumber(value: IHeaders[string]): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const text = raw.toString();
  return /^\d{1,16}$/.test(text) ? Number(text) : null;
}

export interface DeliveryTopicsDeps {
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
}

// What the dispatcher publishes: retry and dead tasks, commands to a lead's owner (keyed by lead id
// on callbacks.commands) and to an endpoint's keeper (keyed by partner id on callbacks.endpoints),
// and the outcome of a manager's command to the instance waiting for it (keyed by reply_to).
export class DeliveryTopics {
  constructor(private readonly deps: DeliveryTopicsDeps) {}

  async task(topic: TopicKey, task: DeliveryTask, timing: TaskTiming): Promise<void> {
    const { producer, codec, topics } = this.deps;
    await producer.send({
      topic: topics[topic],
      messages: [{ key: task.delivery_id, value: await codec.encode(topic, task), headers: taskHeaders(timing) }],
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

import type { Consumer } from 'kafkajs';
import { createConsumer } from '../shared/kafka/client';
import { DecodeError } from '../shared/kafka/codec';
import type { Kafka } from 'kafkajs';
import type { Config } from '../shared/config';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import type { IntakeDecision, IntakeReply } from '../shared/schemas';
import { within } from '../shared/within';

const START_TIMEOUT_MS = 30_000;

export interface PendingReply {
  decision: Promise<IntakeDecision | null>; // null when none arrived in time
  cancel(): void;
}

export interface ReplyWaiterDeps {
  kafka: Kafka;
  config: Config;
  topics: Pick<TopicNames, 'intakeReplies'>;
  codec: TopicCodec;
  logger: Logger;
}

// The reply half of request/reply over Kafka. Each ingress instance reads every partition of the
// reply topic in a consumer group of its own (its instance id is the reply_to of its commands)
// and hands each decision to the request waiting on its correlation id; replies for other
// instances are skipped. Offsets are not committed: a reply is only useful to a live request.
export class ReplyWaiter {
  private readonly pending = new Map<string, (d: IntakeDecision | null) => void>();
  private readonly consumer: Consumer;
  private fetching = false;

  constructor(private readonly d: ReplyWaiterDeps, readonly instanceId: string) {
    this.consumer = createConsumer(d.kafka, d.config, `ingress-replies-${instanceId}`);
  }

  // Resolves once the consumer has joined and finished a first fetch: only then are its start
  // offsets fixed, so no reply to a command sent after this can be missed.
  async start(): Promise<void> {
    const { consumer } = this;
    const firstFetch = new Promise<void>((resolve) => {
      const off = consumer.on(consumer.events.FETCH, () => {
        off();
        resolve();
      });
    });
    consumer.on(consumer.events.FETCH, () => { this.fetching = true; });
    consumer.on(consumer.events.CRASH, ({ payload }) => { if (!payload.restart) this.fetching = false; });
    consumer.on(consumer.events.STOP, () => { this.fetching = false; });
    await consumer.connect();
    await consumer.subscribe({ topic: this.d.topics.intakeReplies, fromBeginning: false });
    await consumer.run({ autoCommit: false, eachMessage: async ({ message }) => this.receive(message.value) });
    await within(firstFetch, START_TIMEOUT_MS, 'the intake reply consumer did not start fetching');
  }

  get ready(): boolean {
    return this.fetching;
  }

  // Register before sending the command, so a fast reply cannot arrive before anyone waits for it.
  expect(correlationId: string, timeoutMs: number): PendingReply {
    let timer: NodeJS.Timeout | undefined;
    const decision = new Promise<IntakeDecision | null>((resolve) => {
      const settle = (d: IntakeDecision | null) => {
        clearTimeout(timer);
        this.pending.delete(correlationId);
        resolve(d);
      };
      timer = setTimeout(() => settle(null), timeoutMs);
      this.pending.set(correlationId, settle);
    });
    return { decision, cancel: () => this.pending.get(correlationId)?.(null) };
  }

  async stop(): Promise<void> {
    for (const settle of [...this.pending.values()]) settle(null);
    await this.consumer.disconnect();
  }

  private async receive(value: Buffer | null): Promise<void> {
    let reply: IntakeReply;
    try {
      reply = await this.d.codec.decode<IntakeReply>('intakeReplies', value);
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      this.d.logger.warn({ reason: err.reason }, 'skipped an undecodable intake reply');
      return;
    }
    if (reply.reply_to === this.instanceId) this.pending.get(reply.correlation_id)?.(reply.decision);
  }
}

import type { Consumer } from 'kafkajs';
import { within } from '../within';
import { createConsumer } from './client';
import { DecodeError } from './codec';
import type { ConsumerClients } from './consumer-settings';
import type { TopicKey } from './topics';

const START_TIMEOUT_MS = 30_000;

export interface PendingReply<R> {
  reply: Promise<R | null>; // null when none arrived in time
  cancel(): void;
}

// What every reply carries: the instance that waits (also the message key) and its request.
interface Reply {
  reply_to: string;
  correlation_id: string;
}

// The reply half of request/reply over Kafka (intake decisions to the ingress, command outcomes to
// the manager). Each instance reads every partition of the reply topic in a consumer group of its
// own (its instance id is the reply_to of its commands and the key of its replies) and hands each
// reply to the request waiting on its correlation id; another instance's replies are skipped by
// key, before decoding. Offsets are not committed: a reply is only useful to a live request.
export class ReplyWaiter<R extends Reply> {
  private readonly pending = new Map<string, (r: R | null) => void>();
  private readonly consumer: Consumer;
  private fetching = false;

  constructor(
    private readonly d: ConsumerClients,
    private readonly topic: TopicKey,
    readonly instanceId: string,
  ) {
    this.consumer = createConsumer(d.kafka, d.settings, `replies-${instanceId}`);
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
    consumer.on(consumer.events.FETCH, () => {
      this.fetching = true;
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) this.fetching = false;
    });
    consumer.on(consumer.events.STOP, () => {
      this.fetching = false;
    });
    await consumer.connect();
    await consumer.subscribe({ topic: this.d.topics[this.topic], fromBeginning: false });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ message }) => this.receive(message.key, message.value),
    });
    await within(firstFetch, START_TIMEOUT_MS, `the ${this.topic} consumer did not start fetching`);
  }

  get ready(): boolean {
    return this.fetching;
  }

  // Register before sending the command, so a fast reply cannot arrive before anyone waits for it.
  expect(correlationId: string, timeoutMs: number): PendingReply<R> {
    let timer: NodeJS.Timeout | undefined;
    const reply = new Promise<R | null>((resolve) => {
      const settle = (r: R | null) => {
        clearTimeout(timer);
        this.pending.delete(correlationId);
        resolve(r);
      };
      timer = setTimeout(() => settle(null), timeoutMs);
      this.pending.set(correlationId, settle);
    });
    return { reply, cancel: () => this.pending.get(correlationId)?.(null) };
  }

  async stop(): Promise<void> {
    for (const settle of [...this.pending.values()]) settle(null);
    await this.consumer.disconnect();
  }

  private async receive(key: Buffer | null, value: Buffer | null): Promise<void> {
    if (key !== null && key.toString() !== this.instanceId) return;
    let reply: R;
    try {
      reply = await this.d.codec.decode<R>(this.topic, value);
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      this.d.logger.warn({ topic: this.topic, reason: err.reason }, 'skipped an undecodable reply');
      return;
    }
    if (reply.reply_to === this.instanceId) this.pending.get(reply.correlation_id)?.(reply);
  }
}

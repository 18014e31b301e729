import { randomBytes } from 'node:crypto';
import type { Consumer, IHeaders } from 'kafkajs';
import type { TopicKey } from '../../src/shared/kafka/topics';
import type { Runtime } from '../../src/shared/runtime';

export interface Seen<T> {
  value: T;
  key: string | null;
  headers: IHeaders;
  partition: number;
}

// Reads a topic from its beginning into memory (decoded with the topic's schema, or raw bytes when
// it has none), so tests can wait for what the pipeline wrote on real Kafka.
export class TopicProbe<T> {
  readonly seen: Seen<T>[] = [];
  private consumer: Consumer | null = null;

  constructor(
    private readonly rt: Runtime,
    private readonly topic: TopicKey,
    private readonly raw = false,
  ) {}

  async start(): Promise<this> {
    const consumer = this.rt.kafka.consumer({ groupId: `probe-${randomBytes(6).toString('hex')}` });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topic: this.rt.topics[this.topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        const value = this.raw
          ? (message.value as unknown as T)
          : await this.rt.codec.decode<T>(this.topic, message.value);
        this.seen.push({ value, key: message.key?.toString() ?? null, headers: message.headers ?? {}, partition });
      },
    });
    await joined;
    this.consumer = consumer;
    return this;
  }

  values(): T[] {
    return this.seen.map((s) => s.value);
  }

  async waitFor(predicate: (values: T[]) => boolean, timeoutMs = 20000, what = 'messages'): Promise<T[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.values())) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what} on ${this.topic}; saw ${this.seen.length}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.values();
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

export async function until<T>(
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 20000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

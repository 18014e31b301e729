import { randomBytes } from 'node:crypto';
import type { TopicKey } from '../../src/shared/kafka/topics';
import type { Runtime } from '../../src/shared/runtime';
import { until } from './topic-probe';

export interface ReadMessage<T> {
  value: T;
  raw: Buffer;
  key: string | null;
  partition: number;
  offset: string;
}

// Everything a topic holds now, from its beginning up to the end offsets it had when asked, decoded
// with the topic's schema (its raw bytes kept): for checks made once the pipeline has settled.
export async function readTopicToEnd<T>(rt: Runtime, topic: TopicKey, timeoutMs = 30_000): Promise<ReadMessage<T>[]> {
  const name = rt.topics[topic];
  const ends = new Map((await rt.admin.fetchTopicOffsets(name)).map((p) => [p.partition, Number(p.high)]));
  const read = new Map<number, number>();
  const out: ReadMessage<T>[] = [];
  const consumer = rt.kafka.consumer({ groupId: `reader-${randomBytes(6).toString('hex')}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: name, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        const raw = message.value as Buffer;
        out.push({
          value: await rt.codec.decode<T>(topic, raw),
          raw,
          key: message.key?.toString() ?? null,
          partition,
          offset: message.offset,
        });
        read.set(partition, Number(message.offset) + 1);
      },
    });
    await until(
      async () => [...ends].every(([p, end]) => end === 0 || (read.get(p) ?? 0) >= end),
      timeoutMs,
      `${name} read to its end`,
    );
  } finally {
    await consumer.disconnect();
  }
  // Only what was there when asked, in each partition's order.
  return out.filter((m) => Number(m.offset) < (ends.get(m.partition) ?? 0));
}

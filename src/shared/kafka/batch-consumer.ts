import type { Admin, Consumer, ConsumerConfig, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Config } from '../config';
import type { ReadinessCheck } from '../http/ops-routes';
import type { Logger } from '../logger';
import { isRetriable } from '../retriable';
import { createConsumer } from './client';
import { assertCoPartitioned, coPartitionAssigner } from './co-partition-assigner';
import { DecodeError, type TopicCodec } from './codec';
import { consumerReadiness } from './consumer-health';
import type { TopicKey, TopicNames } from './topics';

export interface Decoded<T> {
  topic: TopicKey;
  message: KafkaMessage;
  value: T;
}

export interface Undecodable {
  topic: TopicKey;
  message: KafkaMessage;
  error: DecodeError;
}

export interface BatchContext {
  topic: TopicKey;
  partition: number;
  heartbeat(): Promise<void>;
}

export interface BatchConsumerDeps {
  kafka: Kafka;
  config: Config;
  codec: TopicCodec;
  topicNames: TopicNames;
  logger: Logger;
  admin?: Admin; // needed with coPartitioned, to compare the topics' partition counts
}

export interface BatchConsumerOptions<T> {
  group: string;
  topics: readonly TopicKey[];
  // Partition p of every topic goes to one member and its batches run one at a time (one owner per key).
  coPartitioned?: boolean;
  // Records handed to `handle` at once: bounds bulk writes and $in lists, and heartbeats between chunks.
  chunkSize?: number;
  consumer?: Partial<ConsumerConfig>;
  fromBeginning?: boolean;
  // Decides and stores a chunk in bulk, publishes what it produced, and returns: then the offsets move.
  handle(records: Decoded<T>[], ctx: BatchContext): Promise<void>;
  // Bytes that are not a valid message: never retried (they cannot get better).
  undecodable(items: Undecodable[], ctx: BatchContext): Promise<void>;
  // A record whose handling failed for a reason that is not passing (a bug, a document the store
  // refuses) in its chunk and then POISON_TRIES times alone: dead-letter it so the partition moves
  // on. Without it such a record throws.
  poison?(record: Decoded<T>, err: unknown, ctx: BatchContext): Promise<void>;
}

export interface BatchConsumer {
  consumer: Consumer;
  readiness: ReadinessCheck;
  stop(): Promise<void>;
}

const DEFAULT_CHUNK = 200;
const POISON_TRIES = 2;

// The consume-decode-handle skeleton of every committing consumer: a Kafka batch is decoded at the
// edge (schema-checked, typed), cut into chunks, each chunk handled as a whole, and the offset of a
// chunk is resolved only once its handler returned, so a crash replays at most the chunk under way
// (handlers are idempotent: deterministic ids, unique _id as the fence). Passing failures (a server
// away) are thrown to kafkajs, which retries the batch; a chunk failing otherwise is handled again
// record by record, and a record that fails alone goes to `poison`.
export async function startBatchConsumer<T>(deps: BatchConsumerDeps, opts: BatchConsumerOptions<T>): Promise<BatchConsumer> {
  const { codec, topicNames, logger } = deps;
  const keyOf = new Map<string, TopicKey>(opts.topics.map((k) => [topicNames[k], k]));
  const chunkSize = opts.chunkSize ?? DEFAULT_CHUNK;
  if (opts.coPartitioned) await checkPartitionCounts(deps.admin, opts.topics.map((k) => topicNames[k]));
  const consumer = createConsumer(deps.kafka, deps.config, opts.group, {
    ...(opts.coPartitioned ? { partitionAssigners: [coPartitionAssigner] } : {}),
    ...opts.consumer,
  });
  const readiness = consumerReadiness(opts.group, consumer);
  const turns = new PartitionTurns();

  const handleChunk = async (records: Decoded<T>[], ctx: BatchContext): Promise<void> => {
    try {
      await opts.handle(records, ctx);
      return;
    } catch (err) {
      if (isRetriable(err) || !opts.poison) throw err;
      logger.warn({ group: opts.group, topic: ctx.topic, partition: ctx.partition, err }, 'a chunk failed; handling its records one by one');
    }
    for (const record of records) await handleAlone(record, ctx);
  };

  const handleAlone = async (record: Decoded<T>, ctx: BatchContext): Promise<void> => {
    for (let tries = 1; ; tries++) {
      try {
        await opts.handle([record], ctx);
        return;
      } catch (err) {
        if (isRetriable(err)) throw err;
        if (tries < POISON_TRIES) continue;
        logger.error({ group: opts.group, topic: ctx.topic, partition: ctx.partition, offset: record.message.offset, err }, 'poison record');
        await opts.poison?.(record, err, ctx);
        return;
      }
    }
  };

  const eachBatch = async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> => {
    const topic = keyOf.get(batch.topic);
    if (!topic) throw new Error(`consumer ${opts.group} got a batch of unexpected topic ${batch.topic}`);
    const ctx: BatchContext = { topic, partition: batch.partition, heartbeat };
    for (let i = 0; i < batch.messages.length; i += chunkSize) {
      if (!isRunning() || isStale()) return;
      const messages = batch.messages.slice(i, i + chunkSize);
      const decoded = await Promise.all(messages.map((m) => decode<T>(codec, topic, m)));
      const bad = decoded.filter((d): d is Undecodable => 'error' in d);
      const good = decoded.filter((d): d is Decoded<T> => !('error' in d));
      const work = async (): Promise<void> => {
        if (bad.length > 0) await opts.undecodable(bad, ctx);
        if (good.length > 0) await handleChunk(good, ctx);
      };
      await (opts.coPartitioned ? turns.run(batch.partition, work) : work());
      resolveOffset((messages[messages.length - 1] as KafkaMessage).offset);
      await heartbeat();
      await commitOffsetsIfNecessary();
    }
  };

  await consumer.connect();
  await consumer.subscribe({ topics: opts.topics.map((k) => topicNames[k]), fromBeginning: opts.fromBeginning ?? true });
  await consumer.run({ eachBatchAutoResolve: false, partitionsConsumedConcurrently: 6, eachBatch });
  return { consumer, readiness, stop: () => consumer.disconnect() };
}

async function decode<T>(codec: TopicCodec, topic: TopicKey, message: KafkaMessage): Promise<Decoded<T> | Undecodable> {
  try {
    return { topic, message, value: await codec.decode<T>(topic, message.value) };
  } catch (err) {
    if (err instanceof DecodeError) return { topic, message, error: err };
    throw err;
  }
}

async function checkPartitionCounts(admin: Admin | undefined, topics: string[]): Promise<void> {
  if (!admin) throw new Error('a co-partitioned consumer needs the admin client to check partition counts');
  const { topics: meta } = await admin.fetchTopicMetadata({ topics });
  assertCoPartitioned(new Map(meta.map((t) => [t.name, t.partitions.length])));
}

// Batches of one partition number (from any of the co-partitioned topics) run one after another.
class PartitionTurns {
  private readonly tails = new Map<number, Promise<void>>();

  run(partition: number, work: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(partition) ?? Promise.resolve();
    const next = previous.then(work);
    const tail = next.catch(() => undefined);
    this.tails.set(partition, tail);
    void tail.then(() => {
      if (this.tails.get(partition) === tail) this.tails.delete(partition);
    });
    return next;
  }
}

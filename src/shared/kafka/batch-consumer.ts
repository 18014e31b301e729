import {
  PartitionAssigners,
  type Admin,
  type Consumer,
  type ConsumerConfig,
  type EachBatchPayload,
  type KafkaMessage,
} from 'kafkajs';
import type { ReadinessCheck } from '../http/ops-routes';
import { offsetCommits } from './batch-commit';
import { chunkHandler, mergedChunkHandler } from './chunk-handler';
import { createConsumer } from './client';
import { assertCoPartitioned, coPartitionAssigner } from './co-partition-assigner';
import { DecodeError, type TopicCodec } from './codec';
import type { BatchContext, Decoded, Recording, Undecodable } from './batch-types';
import type { ConsumerClients } from './consumer-settings';
import { consumerReadiness } from './consumer-health';
import type { MembershipLease } from './membership-lease';
import { PartitionPauses } from './partition-pauses';
import { PartitionTurns } from './partition-turns';
import type { TopicKey } from './topics';

export type { BatchContext, Decoded, Recording, Undecodable } from './batch-types';

// The clients and settings a consumer is built from (the admin is needed with coPartitioned).
export type BatchConsumerDeps = ConsumerClients;

// What every consumer may set, whatever its strategy.
interface CommonOptions<T> {
  group: string;
  topics: readonly TopicKey[];
  // Records handed to `handle` at once: bounds bulk writes and $in lists, and heartbeats between chunks.
  chunkSize?: number;
  consumer?: Partial<ConsumerConfig>;
  fromBeginning?: boolean;
  // How long a message must wait before it may be handled (0: now). A message that must wait ends
  // its batch there: the partition is paused and resumed with a seek back to it when the time comes.
  admit?(message: KafkaMessage, topic: TopicKey): number;
  // Called at each join of the group with this member's partitions and the join's generation (the
  // one its batches then carry), e.g. to read state back before any batch of a quiet partition comes.
  assigned?(assignment: Partial<Record<TopicKey, number[]>>, generation: number): void;
  // Bytes that are not a valid message: never retried (they cannot get better).
  undecodable(items: Undecodable[], ctx: BatchContext): Promise<void>;
  // A record whose handling failed for a reason that is not passing (a bug, a document the store
  // refuses) in its chunk and then alone (chunk-handler.ts): dead-letter it so the partition moves
  // on. Without it such a record throws.
  poison?(record: Decoded<T>, err: unknown, ctx: BatchContext): Promise<void>;
}

// Strategy 'handled' (the default): a chunk's records are done once `handle` returned; offsets are
// committed on a timer, before every join and at a stop (batch-commit.ts).
export interface HandledOptions<T> extends CommonOptions<T> {
  commit?: 'handled';
  // Partition p of every topic goes to one member and its batches run one at a time (one owner per key).
  coPartitioned?: boolean;
  mergePartitionsMs?: never;
  maxUncommitted?: never;
  handOver?: never;
  lease?: never;
  // Decides and stores a chunk in bulk, publishes what it produced, and returns: then the offsets move.
  handle(records: Decoded<T>[], ctx: BatchContext): Promise<void>;
}

// Strategy 'handled', with chunks of different partitions arriving within `mergePartitionsMs`
// handled as one (chunkSize at most; partition-merger.ts); `handle` then gets the first part's
// context. Partitions are never co-partitioned here.
export interface MergedOptions<T> extends CommonOptions<T> {
  commit?: 'handled';
  mergePartitionsMs: number;
  coPartitioned?: never;
  maxUncommitted?: never;
  handOver?: never;
  lease?: never;
  handle(records: Decoded<T>[], ctx: BatchContext): Promise<void>;
}

// Strategy 'recorded': `handle` may return before the work is done (a Recording); offsets are
// committed only up to the first record not yet recorded (offset-watermark.ts), so a slow record
// never holds up the batch but a crash replays it.
export interface RecordedOptions<T> extends CommonOptions<T> {
  commit: 'recorded';
  coPartitioned?: boolean;
  mergePartitionsMs?: never;
  // Tracked offsets a partition may have uncommitted; beyond, its batch waits.
  maxUncommitted?: number;
  // Runs before every join of the group (each revokes all this member's partitions) and at a
  // graceful stop, before the member leaves: it ends the work started under the assignment
  // (hand-over.ts, assignment-work.ts); then what is recorded is committed, so the next owner
  // starts exactly after it. Must not reject.
  handOver?(): Promise<void>;
  // The member's lease (membership-lease.ts): once it ran out, no chunk starts and the member
  // rejoins. The work `handle` started checks it too (AssignmentWork).
  lease?: MembershipLease;
  // Topics whose partition, once it has as much uncommitted as it may, is paused for a while instead
  // of waiting in its batch: a wait holds one of the consumer's concurrent batches, which the other
  // topics' partitions need (a tier of retries waiting for a slow partner beside leads.events).
  pauseWhenFull?(topic: TopicKey): boolean;
  handle(records: Decoded<T>[], ctx: BatchContext): Promise<void | Recording>;
}

export type BatchConsumerOptions<T> = HandledOptions<T> | MergedOptions<T> | RecordedOptions<T>;

export interface BatchConsumer {
  consumer: Consumer;
  readiness: ReadinessCheck;
  stop(): Promise<void>;
}

const DEFAULT_CHUNK = 200;
// Partitions whose batches are handled at once; a merging consumer takes every partition a fetch
// brings, so their chunks can be joined.
const CONCURRENCY = 6;
const MERGED_CONCURRENCY = 64;
const PAUSING_FETCH_WAIT_MS = 1000;
// How long a full partition of a topic that pauses when full waits before it is fetched again.
const FULL_PAUSE_MS = 1000;

// The consume-decode-handle skeleton of every committing consumer: a Kafka batch is decoded at the
// edge (schema-checked, typed), cut into chunks, each chunk handled as a whole (chunk-handler.ts),
// and its offsets moved by the consumer's commit strategy (batch-commit.ts), so a crash replays at
// most the work under way (handlers are idempotent: deterministic ids, unique _id as the fence).
export async function startBatchConsumer<T>(
  deps: BatchConsumerDeps,
  opts: BatchConsumerOptions<T>,
): Promise<BatchConsumer> {
  const { codec, logger, topics: topicNames } = deps;
  const keyOf = new Map<string, TopicKey>(opts.topics.map((k) => [topicNames[k], k]));
  const chunkSize = opts.chunkSize ?? DEFAULT_CHUNK;
  if (opts.coPartitioned)
    await checkPartitionCounts(
      deps.admin,
      opts.topics.map((k) => topicNames[k]),
    );
  const commits = offsetCommits(opts, logger);
  const consumer = createConsumer(deps.kafka, deps.settings, opts.group, {
    partitionAssigners: commits.assigners(opts.coPartitioned ? coPartitionAssigner : PartitionAssigners.roundRobin),
    // A partition resumed after a pause is fetched from the next fetch on: a consumer that pauses
    // until a record is due keeps its fetches short.
    ...(opts.admit ? { maxWaitTimeInMs: Math.min(PAUSING_FETCH_WAIT_MS, deps.settings.fetchMaxWaitMs) } : {}),
    ...opts.consumer,
  });
  const readiness = consumerReadiness(opts.group, consumer);
  const turns = new PartitionTurns();
  commits.attach(consumer);
  let stopping = false;
  const pauses = new PartitionPauses(consumer, logger);
  const handle =
    opts.mergePartitionsMs === undefined
      ? chunkHandler<T>(opts, logger)
      : mergedChunkHandler<T>(opts, opts.mergePartitionsMs, chunkSize, logger);
  let generation = 0;
  const lease = opts.commit === 'recorded' ? opts.lease : undefined;
  // This member's partitions in its current generation: a batch fetched before a rejoin and handed
  // over after it (a process thawed after a freeze) may be of a partition that is now another's.
  let owned = new Set<string>();
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    lease?.joined();
    generation++;
    owned = new Set(
      Object.entries(event.payload.memberAssignment).flatMap(([name, partitions]) =>
        partitions.map((p) => `${name}:${p}`),
      ),
    );
    if (!opts.assigned) return;
    const assignment: Partial<Record<TopicKey, number[]>> = {};
    for (const [name, partitions] of Object.entries(event.payload.memberAssignment)) {
      const key = keyOf.get(name);
      if (key) assignment[key] = partitions;
    }
    opts.assigned(assignment, generation);
  });

  const eachBatch = async ({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
  }: EachBatchPayload): Promise<void> => {
    const topic = keyOf.get(batch.topic);
    if (!topic) throw new Error(`consumer ${opts.group} got a batch of unexpected topic ${batch.topic}`);
    const ctx: BatchContext = { topic, partition: batch.partition, generation, heartbeat };
    const ours = `${batch.topic}:${batch.partition}`;
    const live = () =>
      isRunning() &&
      !isStale() &&
      !stopping &&
      (lease?.held ?? true) &&
      ctx.generation === generation &&
      owned.has(ours);
    const batchCommits = commits.forBatch(batch.topic, batch.partition);
    let admitted = batch.messages;
    if (opts.admit) {
      for (let i = 0; i < batch.messages.length; i++) {
        const message = batch.messages[i] as KafkaMessage;
        const waitMs = opts.admit(message, topic);
        if (waitMs <= 0) continue;
        admitted = batch.messages.slice(0, i);
        pauses.pause(batch.topic, batch.partition, message.offset, waitMs);
        break;
      }
    }
    const pauseWhenFull = opts.commit === 'recorded' && (opts.pauseWhenFull?.(topic) ?? false);
    for (let i = 0; i < admitted.length; i += chunkSize) {
      if (!live()) return;
      const messages = admitted.slice(i, i + chunkSize);
      if (pauseWhenFull && batchCommits.full()) {
        pauses.pause(batch.topic, batch.partition, (messages[0] as KafkaMessage).offset, FULL_PAUSE_MS);
        return;
      }
      if (!(await batchCommits.ready(live, heartbeat))) return;
      const decoded = await Promise.all(messages.map((m) => decode<T>(codec, topic, batch.partition, m)));
      const bad = decoded.filter((d): d is Undecodable => 'error' in d);
      const good = decoded.filter((d): d is Decoded<T> => !('error' in d));
      const work = async (): Promise<void | Recording> => {
        if (bad.length > 0) await opts.undecodable(bad, ctx);
        if (good.length === 0) return;
        return handle(good, ctx);
      };
      const recording = await (opts.coPartitioned ? turns.run(batch.partition, work) : work());
      batchCommits.handled(messages, bad, good, recording);
      resolveOffset((messages[messages.length - 1] as KafkaMessage).offset);
      await heartbeat();
    }
  };

  await consumer.connect();
  await consumer.subscribe({
    topics: opts.topics.map((k) => topicNames[k]),
    fromBeginning: opts.fromBeginning ?? true,
  });
  await consumer.run({
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: opts.mergePartitionsMs === undefined ? CONCURRENCY : MERGED_CONCURRENCY,
    eachBatch,
    autoCommit: false,
  });
  return {
    consumer,
    readiness,
    // Takes no new batch, hands the work under way over (recorded, committed) while still a member
    // of the group, then leaves it: the next owner starts where this one ended.
    async stop() {
      stopping = true;
      pauses.stop();
      await commits.beforeLeave(
        consumer,
        opts.topics.map((k) => topicNames[k]),
      );
      await consumer.disconnect();
      pauses.clear(); // whatever the last batch added
    },
  };
}

async function decode<T>(
  codec: TopicCodec,
  topic: TopicKey,
  partition: number,
  message: KafkaMessage,
): Promise<Decoded<T> | Undecodable> {
  try {
    return { topic, partition, message, value: await codec.decode<T>(topic, message.value) };
  } catch (err) {
    if (err instanceof DecodeError) return { topic, partition, message, error: err };
    throw err;
  }
}

async function checkPartitionCounts(admin: Admin | undefined, topics: string[]): Promise<void> {
  if (!admin) throw new Error('a co-partitioned consumer needs the admin client to check partition counts');
  const { topics: meta } = await admin.fetchTopicMetadata({ topics });
  assertCoPartitioned(new Map(meta.map((t) => [t.name, t.partitions.length])));
}

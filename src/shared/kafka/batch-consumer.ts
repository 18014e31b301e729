import { PartitionAssigners, type Admin, type Consumer, type ConsumerConfig, type EachBatchPayload, type Kafka, type KafkaMessage } from 'kafkajs';
import type { Config } from '../config';
import type { ReadinessCheck } from '../http/ops-routes';
import type { Logger } from '../logger';
import { isRetriable } from '../retriable';
import { createConsumer } from './client';
import { assertCoPartitioned, coPartitionAssigner } from './co-partition-assigner';
import { DecodeError, type TopicCodec } from './codec';
import { consumerReadiness } from './consumer-health';
import { handingOver } from './hand-over';
import { OffsetWatermark } from './offset-watermark';
import { PartitionMerger } from './partition-merger';
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
  // Counts the group joins of this member: a new value means the partition may have been away
  // (and its uncommitted records come again).
  generation: number;
  heartbeat(): Promise<void>;
}

// With commit 'recorded', what `handle` returns: per record (same order), a promise that resolves
// once the record's work is recorded for good, or undefined when it already is. Such promises
// should not reject (retry inside): a record never done holds its partition's commits back.
export type Recording = readonly (Promise<unknown> | undefined)[];

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
  // 'handled' (default): a chunk's offsets move once `handle` returned. 'recorded': `handle` may
  // return before the work is done (a Recording); offsets are committed by hand (autoCommit off),
  // only up to the first record not yet recorded (offset-watermark.ts), so a slow record never
  // holds up the batch but a crash replays it.
  commit?: 'handled' | 'recorded';
  // Chunks of different partitions arriving within this many ms are handled as one (chunkSize at
  // most; partition-merger.ts). Only with commit 'handled' and not co-partitioned; `handle` then gets
  // the first part's context. A merged chunk that fails otherwise than passingly is handled again
  // part by part (then record by record).
  mergePartitionsMs?: number;
  // With 'recorded': tracked offsets a partition may have uncommitted; beyond, its batch waits.
  maxUncommitted?: number;
  // With 'recorded': runs before every join of the group (each revokes all this member's
  // partitions) and at a graceful stop, before the member leaves: it ends the work started under
  // the assignment (hand-over.ts, assignment-work.ts); then what is recorded is committed, so the
  // next owner starts exactly after it. Must not reject.
  handOver?(): Promise<void>;
  // How long a message must wait before it may be handled (0: now). A message that must wait ends
  // its batch there: the partition is paused and resumed with a seek back to it when the time comes.
  admit?(message: KafkaMessage, topic: TopicKey): number;
  // Decides and stores a chunk in bulk, publishes what it produced, and returns: then the offsets move.
  handle(records: Decoded<T>[], ctx: BatchContext): Promise<void | Recording>;
  // Called at each join of the group with this member's partitions and the join's generation (the
  // one its batches then carry), e.g. to read state back before any batch of a quiet partition comes.
  assigned?(assignment: Partial<Record<TopicKey, number[]>>, generation: number): void;
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
  const recorded = opts.commit === 'recorded';
  if (opts.handOver && !recorded) throw new Error(`consumer ${opts.group}: handOver needs commit 'recorded'`);
  const handOver = async (): Promise<void> => {
    await opts.handOver?.();
    await marks?.commit();
  };
  const assigner = opts.coPartitioned ? coPartitionAssigner : PartitionAssigners.roundRobin;
  const consumer = createConsumer(deps.kafka, deps.config, opts.group, {
    ...(opts.coPartitioned || recorded ? { partitionAssigners: [recorded ? handingOver(assigner, handOver) : assigner] } : {}),
    ...opts.consumer,
  });
  const readiness = consumerReadiness(opts.group, consumer);
  const turns = new PartitionTurns();
  const marks = recorded ? new Watermarks(consumer, logger.child({ group: opts.group })) : null;
  let stopping = false;
  const pauses = new PartitionPauses(consumer, logger);
  if (opts.mergePartitionsMs !== undefined && (recorded || opts.coPartitioned)) {
    throw new Error(`consumer ${opts.group}: mergePartitionsMs needs commit 'handled' and no co-partitioning`);
  }
  const merger = opts.mergePartitionsMs === undefined
    ? undefined
    : new PartitionMerger<Decoded<T>, BatchContext>(opts.mergePartitionsMs, chunkSize, async (records, first) => {
      await opts.handle(records, first);
    });
  let generation = 0;
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    generation++;
    if (!opts.assigned) return;
    const assignment: Partial<Record<TopicKey, number[]>> = {};
    for (const [name, partitions] of Object.entries(event.payload.memberAssignment)) {
      const key = keyOf.get(name);
      if (key) assignment[key] = partitions;
    }
    opts.assigned(assignment, generation);
  });

  const handleMerged = async (records: Decoded<T>[], ctx: BatchContext, merging: PartitionMerger<Decoded<T>, BatchContext>): Promise<void | Recording> => {
    try {
      return await merging.submit(records, ctx);
    } catch (err) {
      if (isRetriable(err) || !opts.poison) throw err;
      logger.warn({ group: opts.group, topic: ctx.topic, partition: ctx.partition, err }, 'a merged chunk failed; handling its parts alone');
    }
    return handleChunk(records, ctx);
  };

  // Returns the chunk's recording (undefined: all recorded once this returns).
  const handleChunk = async (records: Decoded<T>[], ctx: BatchContext): Promise<void | Recording> => {
    try {
      return await opts.handle(records, ctx);
    } catch (err) {
      if (isRetriable(err) || !opts.poison) throw err;
      logger.warn({ group: opts.group, topic: ctx.topic, partition: ctx.partition, err }, 'a chunk failed; handling its records one by one');
    }
    const recording: (Promise<unknown> | undefined)[] = [];
    for (const record of records) recording.push((await handleAlone(record, ctx)).pending);
    return recording;
  };

  // One record, up to POISON_TRIES times, then to `poison`; `pending` is its recording (none:
  // recorded already, or poisoned).
  const handleAlone = async (record: Decoded<T>, ctx: BatchContext): Promise<{ pending?: Promise<unknown> }> => {
    for (let tries = 1; ; tries++) {
      try {
        const recording = await opts.handle([record], ctx);
        return recording?.[0] ? { pending: recording[0] } : {};
      } catch (err) {
        if (isRetriable(err)) throw err;
        if (tries < POISON_TRIES) continue;
        logger.error({ group: opts.group, topic: ctx.topic, partition: ctx.partition, offset: record.message.offset, err }, 'poison record');
        await opts.poison?.(record, err, ctx);
        return {};
      }
    }
  };

  const eachBatch = async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> => {
    const topic = keyOf.get(batch.topic);
    if (!topic) throw new Error(`consumer ${opts.group} got a batch of unexpected topic ${batch.topic}`);
    const ctx: BatchContext = { topic, partition: batch.partition, generation, heartbeat };
    const mark = marks?.of(batch.topic, batch.partition);
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
    for (let i = 0; i < admitted.length; i += chunkSize) {
      if (!isRunning() || isStale() || stopping) return;
      const messages = admitted.slice(i, i + chunkSize);
      if (mark) {
        // Bounded memory and replay: wait (heartbeating) until enough of this partition is committed.
        while (mark.uncommitted >= (opts.maxUncommitted ?? Infinity)) {
          await new Promise((r) => setTimeout(r, 50));
          if (!isRunning() || isStale() || stopping || marks?.of(batch.topic, batch.partition) !== mark) return;
          await heartbeat();
        }
      }
      const decoded = await Promise.all(messages.map((m) => decode<T>(codec, topic, m)));
      const bad = decoded.filter((d): d is Undecodable => 'error' in d);
      const good = decoded.filter((d): d is Decoded<T> => !('error' in d));
      const work = async (): Promise<void | Recording> => {
        if (bad.length > 0) await opts.undecodable(bad, ctx);
        if (good.length === 0) return;
        return merger ? handleMerged(good, ctx, merger) : handleChunk(good, ctx);
      };
      const recording = await (opts.coPartitioned ? turns.run(batch.partition, work) : work());
      if (mark) {
        for (const m of messages) mark.track(m.offset);
        for (const m of bad) mark.done(m.message.offset);
        good.forEach((record, n) => {
          const pending = recording?.[n];
          if (!pending) mark.done(record.message.offset);
          else pending.then(() => mark.done(record.message.offset), (err: unknown) => logger.error({ group: opts.group, err }, 'a record was never recorded; its partition commits no further'));
        });
      }
      resolveOffset((messages[messages.length - 1] as KafkaMessage).offset);
      await heartbeat();
      if (!mark) await commitOffsetsIfNecessary();
    }
  };

  await consumer.connect();
  await consumer.subscribe({ topics: opts.topics.map((k) => topicNames[k]), fromBeginning: opts.fromBeginning ?? true });
  await consumer.run({ eachBatchAutoResolve: false, partitionsConsumedConcurrently: 6, eachBatch, ...(recorded ? { autoCommit: false } : {}) });
  return {
    consumer,
    readiness,
    // Takes no new batch, hands the work under way over (recorded, committed) while still a member
    // of the group, then leaves it: the next owner starts where this one ended.
    async stop() {
      stopping = true;
      pauses.stop();
      if (recorded) {
        try {
          consumer.pause(opts.topics.map((k) => ({ topic: topicNames[k] })));
        } catch (err) {
          // Not running (a crash being restarted): it fetches nothing anyway.
          logger.warn({ group: opts.group, err: (err as Error).message }, 'could not pause the consumer before its hand-over');
        }
        await handOver();
      }
      await marks?.stop();
      await consumer.disconnect();
      pauses.clear(); // whatever the last batch added
    },
  };
}

const COMMIT_EVERY_MS = 200;

// The watermarks of the partitions this member owns now. A rebalance makes kafkajs fetch again from
// the committed offsets, so each join starts new watermarks; promises of the old ones land nowhere.
class Watermarks {
  private marks = new Map<string, OffsetWatermark>();
  private readonly timer: NodeJS.Timeout;
  private committing: Promise<void> = Promise.resolve();

  constructor(private readonly consumer: Consumer, private readonly logger: Logger) {
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.marks = new Map();
    });
    consumer.on(consumer.events.CRASH, () => {
      this.marks = new Map();
    });
    this.timer = setInterval(() => void this.commit(), COMMIT_EVERY_MS);
    this.timer.unref();
  }

  of(topic: string, partition: number): OffsetWatermark {
    const key = `${topic}:${partition}`;
    let mark = this.marks.get(key);
    if (!mark) {
      mark = new OffsetWatermark();
      this.marks.set(key, mark);
    }
    return mark;
  }

  commit(): Promise<void> {
    this.committing = this.committing.then(async () => {
      const marks = this.marks;
      const due = [...marks].flatMap(([key, mark]) => {
        const offset = mark.toCommit();
        const cut = key.lastIndexOf(':');
        return offset === null ? [] : [{ topic: key.slice(0, cut), partition: Number(key.slice(cut + 1)), offset, mark }];
      });
      if (due.length === 0) return;
      try {
        await this.consumer.commitOffsets(due.map(({ topic, partition, offset }) => ({ topic, partition, offset })));
        for (const d of due) d.mark.committed(d.offset);
      } catch (err) {
        // A rebalance under way, a coordinator moving: the next round commits (or the next owner replays).
        this.logger.debug({ err: (err as Error).message }, 'could not commit offsets this round');
      }
    });
    return this.committing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.commit();
  }
}

interface PausedPartition {
  topic: string;
  partition: number;
  offset: string;
  timer: NodeJS.Timeout;
}

// Partitions paused until their head message may be handled, then resumed with a seek back to it.
class PartitionPauses {
  private readonly paused = new Map<string, PausedPartition>();
  private stopping = false;

  constructor(private readonly consumer: Consumer, private readonly logger: Logger) {
    // A rebalance keeps kafkajs's pause flags: resume everything, seeking only where we still own
    // the partition. The head message comes back and is judged again.
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      for (const p of [...this.paused.values()]) this.resume(p, payload.memberAssignment[p.topic]?.includes(p.partition) ?? false);
    });
    // A crashed consumer forgets its pauses and restarts from its committed offsets: so do we.
    consumer.on(consumer.events.CRASH, () => this.clear());
  }

  pause(topic: string, partition: number, offset: string, waitMs: number): void {
    if (this.stopping) return;
    this.consumer.pause([{ topic, partitions: [partition] }]);
    const entry: PausedPartition = { topic, partition, offset, timer: setTimeout(() => this.resume(entry, true), waitMs) };
    this.paused.set(`${topic}:${partition}`, entry);
  }

  stop(): void {
    this.stopping = true;
    this.clear();
  }

  clear(): void {
    for (const p of this.paused.values()) clearTimeout(p.timer);
    this.paused.clear();
  }

  private resume(p: PausedPartition, seek: boolean): void {
    clearTimeout(p.timer);
    this.paused.delete(`${p.topic}:${p.partition}`);
    try {
      // Seek before resuming: kafkajs may never resume a partition paused before it consumed (#1599).
      if (seek) this.consumer.seek({ topic: p.topic, partition: p.partition, offset: p.offset });
      this.consumer.resume([{ topic: p.topic, partitions: [p.partition] }]);
    } catch (err) {
      // Not running (crashed, restarting): its next join fetches from the committed offset, this
      // uncommitted message included. From a timer, the throw would have ended the process.
      this.logger.warn({ topic: p.topic, partition: p.partition, err: (err as Error).message }, 'could not resume a paused partition');
    }
  }
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
  private readonly tails = new Map<number, Promise<unknown>>();

  run<R>(partition: number, work: () => Promise<R>): Promise<R> {
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

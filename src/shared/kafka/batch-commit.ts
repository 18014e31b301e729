import type { Consumer, KafkaMessage, PartitionAssigner } from 'kafkajs';
import type { Logger } from '../logger';
import type { Decoded, Recording, Undecodable } from './batch-types';
import { handingOver, type CommitVia, type OffsetsByTopic } from './hand-over';
import type { MembershipLease } from './membership-lease';
import { OffsetWatermark } from './offset-watermark';

// How a consumer's offsets move. Offsets are committed by hand (autoCommit off), COMMIT_EVERY_MS
// after a record is done (a consumer at rest has no commit round), only up to the first record not
// yet done (offset-watermark.ts), before every join of the group and at a stop. kafkajs's own auto-commit sends one OffsetCommit after every
// partition's batch: at 200 leads a second that was about as many commit requests to the broker as
// half the leads, each a replicated write to __consumer_offsets. Handlers are idempotent (unique
// _id as the fence), so a crash replays at most the last interval's work.
//   handled:  a chunk's records are done once its handler returned.
//   recorded: the handler may return before its work is done (a Recording): each record is done
//             once recorded, and the work under way is handed over before every join and at a stop.
export interface CommitStrategy {
  // The assigners the consumer is created with, each running the hand-over before every join.
  assigners(assigner: PartitionAssigner): PartitionAssigner[];
  // Called once the consumer exists, before any batch.
  attach(consumer: Consumer): void;
  forBatch(topic: string, partition: number): BatchCommits;
  // At a graceful stop, while still a member of the group.
  beforeLeave(consumer: Consumer, topics: readonly string[]): Promise<void>;
}

// The commits of one Kafka batch, chunk by chunk.
export interface BatchCommits {
  // The partition has as much uncommitted as it may.
  full(): boolean;
  // Before a chunk: waits while the partition has too much uncommitted; false when the batch must end.
  ready(live: () => boolean, heartbeat: () => Promise<void>): Promise<boolean>;
  // After a chunk was handled: what of it is done, now or later.
  handled(
    messages: readonly KafkaMessage[],
    bad: readonly Undecodable[],
    good: readonly Decoded<unknown>[],
    recording: void | Recording,
  ): void;
}

export interface CommitOptions {
  group: string;
  // Tracked offsets a partition may have uncommitted; beyond, its batch waits.
  maxUncommitted?: number;
  // Ends the work started under the assignment (hand-over.ts, assignment-work.ts). Must not reject.
  handOver?(): Promise<void>;
  // The member's lease on its partitions, kept by its heartbeats and joins (membership-lease.ts).
  lease?: MembershipLease;
}

export function offsetCommits(opts: CommitOptions, logger: Logger): CommitStrategy {
  let marks: Watermarks | null = null;
  // Then what is done is committed, so the next owner starts exactly after it.
  const handOver = async (commit?: CommitVia): Promise<void> => {
    await opts.handOver?.();
    await marks?.commit(commit);
  };
  const max = opts.maxUncommitted ?? Infinity;
  return {
    assigners: (assigner) => [handingOver(assigner, handOver, opts.lease)],
    attach(consumer) {
      marks = new Watermarks(consumer, logger.child({ group: opts.group }));
    },
    forBatch(topic, partition) {
      const all = marks as Watermarks;
      const mark = all.of(topic, partition);
      return {
        full: () => mark.uncommitted >= max,
        async ready(live, heartbeat) {
          // Bounded memory and replay: wait (heartbeating) until enough of this partition is committed.
          while (mark.uncommitted >= max) {
            await new Promise((r) => setTimeout(r, 50));
            if (!live() || all.of(topic, partition) !== mark) return false;
            await heartbeat();
          }
          return true;
        },
        handled(messages, bad, good, recording) {
          const done = (offset: string): void => {
            mark.done(offset);
            all.due();
          };
          for (const m of messages) mark.track(m.offset);
          for (const m of bad) done(m.message.offset);
          good.forEach((record, n) => {
            const pending = recording?.[n];
            // Only the offset is kept while the work is under way: a message's bytes are a view of its
            // whole fetch response, and its value is the decoded record.
            const offset = record.message.offset;
            if (!pending) done(offset);
            else
              pending.then(
                () => done(offset),
                (err: unknown) =>
                  logger.error(
                    { group: opts.group, err },
                    'a record was never recorded; its partition commits no further',
                  ),
              );
          });
        },
      };
    },
    async beforeLeave(consumer, topics) {
      try {
        consumer.pause(topics.map((topic) => ({ topic })));
      } catch (err) {
        // Not running (a crash being restarted): it fetches nothing anyway.
        logger.warn(
          { group: opts.group, err: (err as Error).message },
          'could not pause the consumer before its hand-over',
        );
      }
      await handOver();
      await marks?.stop();
    },
  };
}

const COMMIT_EVERY_MS = 200;

// The watermarks of the partitions this member owns now. A rebalance makes kafkajs fetch again from
// the committed offsets, so each join starts new watermarks; promises of the old ones land nowhere.
class Watermarks {
  private marks = new Map<string, OffsetWatermark>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private committing: Promise<void> = Promise.resolve();

  constructor(
    private readonly consumer: Consumer,
    private readonly logger: Logger,
  ) {
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.marks = new Map();
    });
    consumer.on(consumer.events.CRASH, () => {
      this.marks = new Map();
    });
  }

  // A record is done: a commit round within COMMIT_EVERY_MS, with whatever else is done by then.
  due(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.commit();
    }, COMMIT_EVERY_MS);
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

  // `via`: another way to send them (hand-over.ts: at a leave, through the group).
  commit(via?: CommitVia): Promise<void> {
    this.committing = this.committing.then(async () => {
      const marks = this.marks;
      const due = [...marks].flatMap(([key, mark]) => {
        const offset = mark.toCommit();
        const cut = key.lastIndexOf(':');
        return offset === null
          ? []
          : [{ topic: key.slice(0, cut), partition: Number(key.slice(cut + 1)), offset, mark }];
      });
      if (due.length === 0) return;
      try {
        if (via) await via(byTopic(due));
        else
          await this.consumer.commitOffsets(due.map(({ topic, partition, offset }) => ({ topic, partition, offset })));
        for (const d of due) d.mark.committed(d.offset);
      } catch (err) {
        // A rebalance under way, a coordinator moving: the next round commits (or the next owner replays).
        this.logger.debug({ err: (err as Error).message }, 'could not commit offsets this round');
        this.due();
      }
    });
    return this.committing;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.commit();
  }
}

function byTopic(due: readonly { topic: string; partition: number; offset: string }[]): OffsetsByTopic {
  const topics = new Map<string, { partition: number; offset: string }[]>();
  for (const { topic, partition, offset } of due) {
    const partitions = topics.get(topic) ?? [];
    partitions.push({ partition, offset });
    topics.set(topic, partitions);
  }
  return [...topics].map(([topic, partitions]) => ({ topic, partitions }));
}

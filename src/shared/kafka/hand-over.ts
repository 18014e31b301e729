import { performance } from 'node:perf_hooks';
import { KafkaJSProtocolError, type PartitionAssigner } from 'kafkajs';
import type { MembershipLease } from './membership-lease';
import { kafkajsInternal } from './kafkajs-internals';

// kafkajs 2.x has no "partitions revoked" callback. Its only protocol is eager: every rejoin of a
// member revokes all its partitions, and it rejoins the moment it hears of a rebalance. A member
// whose work outlives its batches (the dispatcher's HTTP attempts, recorded after the batch
// returned) would hand its partitions over with that work still under way, and the next owner,
// reading from the committed offsets, would do it again. So before every join this runs the
// member's hand-over (finish or fence that work, commit its offsets): the group waits for the
// member's JoinGroup, so no other member gets its partitions until it has committed. The only way
// in is ConsumerGroup.joinAndSync (and out, ConsumerGroup.leave); kafkajs is frozen at 2.2.4 (no release since 2023), so the
// internal it wraps does not move (kafkajs-internals.ts refuses any other version). Members are told apart by their cluster object, which kafkajs
// creates per consumer and hands to the consumer's partition assigners.
//
// The same two internals keep the member's lease (membership-lease.ts): the time each answered
// heartbeat was sent renews it, and a member whose lease ran out while the coordinator still counts
// it in (a partition from Kafka that healed within the session) is made to rejoin, so that it hands
// its fenced work over and starts again from the committed offsets.
interface Group {
  cluster: object;
  groupId: string;
  generationId: number;
  memberId: string | null;
  lastRequest: number;
  coordinator: {
    heartbeat(p: { groupId: string; memberId: string; groupGenerationId: number }): Promise<unknown>;
  } | null;
  commitOffsets(offsets: { topics: OffsetsByTopic }): Promise<void>;
}
type JoinAndSync = (this: Group) => Promise<unknown>;
type Leave = (this: Group) => Promise<unknown>;
type Heartbeat = (this: Group, args: { interval: number }) => Promise<unknown>;
const ConsumerGroup = kafkajsInternal<{
  prototype: { joinAndSync: JoinAndSync; leave: Leave; heartbeat: Heartbeat };
}>('consumer/consumerGroup');

// Offsets to commit, by topic, in kafkajs's own shape.
export type OffsetsByTopic = { topic: string; partitions: { partition: number; offset: string }[] }[];
// How a hand-over commits what is done: through the consumer where none is given; at a leave, through
// the group itself, as kafkajs's runner has stopped by then and its commit does nothing.
export type CommitVia = (topics: OffsetsByTopic) => Promise<void>;

interface Member {
  handOver(commit?: CommitVia): Promise<void>;
  lease?: MembershipLease;
}
const members = new WeakMap<object, Member>();
const pendingSince = new WeakMap<object, number>(); // when the heartbeat under way was started

const joinAndSync = ConsumerGroup.prototype.joinAndSync;
ConsumerGroup.prototype.joinAndSync = async function handOverThenJoin(this: Group) {
  const member = members.get(this.cluster);
  if (member) await handOverBeating(this, member);
  member?.lease?.joining();
  return joinAndSync.call(this);
};

// A member that leaves gives its partitions away at once, like one that rejoins. kafkajs leaves when
// its consumer stops, and also when the consumer crashes (a broker failover can end in one: it
// disconnects, then restarts the consumer), which passes no graceful stop of ours: the work under
// way would go on beside the next owner's, which reads from the committed offsets and does it
// again. So a leave hands over first, as a join does (after a graceful stop's hand-over, a second
// finds nothing to wait for).
const leave = ConsumerGroup.prototype.leave;
ConsumerGroup.prototype.leave = async function handOverThenLeave(this: Group) {
  const member = members.get(this.cluster);
  if (member && this.memberId) await handOverBeating(this, member, (topics) => this.commitOffsets({ topics }));
  return leave.call(this);
};

// kafkajs sends no heartbeat until it has joined again, so a hand-over longer than the lease would
// cut off work it could still record. Like the Java consumer's heartbeat thread during its
// revocation callback, the member heartbeats while it hands over: an answer, even
// REBALANCE_IN_PROGRESS, means the coordinator still counts it in and renewed its session.
async function handOverBeating(group: Group, member: Member, commit?: CommitVia): Promise<void> {
  const { lease } = member;
  let done = false;
  const handedOver = member.handOver(commit).finally(() => {
    done = true;
  });
  while (lease && !done) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      handedOver,
      new Promise((r) => {
        timer = setTimeout(r, lease.beatEveryMs);
      }),
    ]);
    clearTimeout(timer);
    if (done || !group.memberId || !group.coordinator || !lease.held) continue;
    const sentAt = performance.now();
    try {
      await group.coordinator.heartbeat({
        groupId: group.groupId,
        memberId: group.memberId,
        groupGenerationId: group.generationId,
      });
      lease.confirmed(sentAt);
    } catch (err) {
      if ((err as { type?: string }).type === 'REBALANCE_IN_PROGRESS') lease.confirmedRebalancing(sentAt);
      // Anything else (the member is unknown, a generation moved on, the coordinator away): no renewal.
    }
  }
  await handedOver;
}

const heartbeat = ConsumerGroup.prototype.heartbeat;
ConsumerGroup.prototype.heartbeat = async function heartbeatOnLease(this: Group, args: { interval: number }) {
  const lease = members.get(this.cluster)?.lease;
  if (!lease) return heartbeat.call(this, args);
  if (!lease.held && this.memberId) {
    throw new KafkaJSProtocolError(
      Object.assign(new Error("this member's lease ran out: it rejoins before it acts again"), {
        type: 'REBALANCE_IN_PROGRESS',
        code: 27,
        retriable: false,
      }),
    );
  }
  // kafkajs shares one heartbeat between concurrent callers and skips it within its interval: the
  // lease moves only when a request was sent and answered, from the moment the first caller started.
  const before = this.lastRequest;
  const sentAt = pendingSince.get(this) ?? performance.now();
  pendingSince.set(this, sentAt);
  try {
    await heartbeat.call(this, args);
  } finally {
    if (pendingSince.get(this) === sentAt) pendingSince.delete(this);
  }
  if (this.lastRequest !== before) lease.confirmed(sentAt);
};

// The assigner a consumer is created with, registering `handOver` to run before each of its joins
// and `lease` (if any) to be kept by its heartbeats and joins. `handOver` must not reject, and must
// end well within the session timeout: the member sends no heartbeat meanwhile.
export function handingOver(
  assigner: PartitionAssigner,
  handOver: (commit?: CommitVia) => Promise<void>,
  lease?: MembershipLease,
): PartitionAssigner {
  return (config) => {
    members.set(config.cluster, { handOver, lease });
    return assigner(config);
  };
}

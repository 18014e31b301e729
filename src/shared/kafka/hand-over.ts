import type { PartitionAssigner } from 'kafkajs';

// kafkajs 2.x has no "partitions revoked" callback. Its only protocol is eager: every rejoin of a
// member revokes all its partitions, and it rejoins the moment it hears of a rebalance. A member
// whose work outlives its batches (the dispatcher's HTTP attempts, recorded after the batch
// returned) would hand its partitions over with that work still under way, and the next owner,
// reading from the committed offsets, would do it again. So before every join this runs the
// member's hand-over (finish or fence that work, commit its offsets): the group waits for the
// member's JoinGroup, so no other member gets its partitions until it has committed. The only way
// in is ConsumerGroup.joinAndSync; kafkajs is frozen at 2.2.4 (no release since 2023), so the
// internal it wraps does not move. Members are told apart by their cluster object, which kafkajs
// creates per consumer and hands to the consumer's partition assigners.
type JoinAndSync = (this: { cluster: object }) => Promise<unknown>;
const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as { prototype: { joinAndSync: JoinAndSync } };

const handOvers = new WeakMap<object, () => Promise<void>>();
const joinAndSync = ConsumerGroup.prototype.joinAndSync;
ConsumerGroup.prototype.joinAndSync = async function handOverThenJoin(this: { cluster: object }) {
  await handOvers.get(this.cluster)?.();
  return joinAndSync.call(this);
};

// The assigner a consumer is created with, registering `handOver` to run before each of its joins.
// `handOver` must not reject, and must end well within the session timeout: the member sends no
// heartbeat meanwhile.
export function handingOver(assigner: PartitionAssigner, handOver: () => Promise<void>): PartitionAssigner {
  return (config) => {
    handOvers.set(config.cluster, handOver);
    return assigner(config);
  };
}

import { kafkajsInternal } from './kafkajs-internals';
// kafkajs 2.2.4 keeps the coordinator an offset manager commits to for the manager's whole life and
// looks for another only once that broker's connection drops. After a coordinator moves to another
// broker that stays up (a failover of the broker holding __consumer_offsets' leader, then its
// return), every commit is answered "This is not the correct coordinator for this group" for as long
// as the member keeps its assignment: its offsets never move, and each restart replays all of it.
// So a commit refused that way makes the manager look the group's coordinator up again; the next
// commit (a timer away) goes there. kafkajs is frozen at 2.2.4: the internal patched here does not move.
interface OffsetManager {
  groupId: string;
  coordinator: unknown;
  cluster: { findGroupCoordinator(args: { groupId: string }): Promise<unknown> };
  commitOffsets(...args: unknown[]): Promise<unknown>;
}
const OffsetManagerClass = kafkajsInternal<{ prototype: OffsetManager }>('consumer/offsetManager');

const MOVED = new Set(['NOT_COORDINATOR_FOR_GROUP', 'COORDINATOR_NOT_AVAILABLE']);

const commitOffsets = OffsetManagerClass.prototype.commitOffsets;
OffsetManagerClass.prototype.commitOffsets = async function commitToTheCoordinator(
  this: OffsetManager,
  ...args: unknown[]
) {
  try {
    return await commitOffsets.apply(this, args);
  } catch (err) {
    if (MOVED.has((err as { type?: string }).type ?? '')) {
      this.coordinator = await this.cluster
        .findGroupCoordinator({ groupId: this.groupId })
        .catch(() => this.coordinator);
    }
    throw err;
  }
};

import type { Collection, Filter } from 'mongodb';
import type { DeliveryBacklogDoc } from '../../shared/mongo/delivery-doc';
import { systemClock, type Clock } from '../../shared/clock';
import { duplicateKeysOf } from '../../shared/mongo/bulk';

// Where each endpoint's backlog starts on a partition (endpoint-backlogs.ts), for the partition's
// next owner: the only code that writes `delivery_backlogs`, a few writes a backlog (its opening,
// its progress about once a second, its end), never one an event. Fenced as the blocks are
// (block-store.ts): every new owner of a partition stamps the partition's backlogs with its epoch
// before reading them, and a write carrying an earlier epoch is refused. Writes of one backlog go
// one after another, in the order they were asked.
export class BacklogStore {
  private readonly queued = new Map<string, Promise<unknown>>();

  constructor(
    private readonly backlogs: Collection<DeliveryBacklogDoc>,
    private readonly clock: Clock = systemClock,
  ) {}

  // False when a later owner of the partition holds the backlog: nothing written.
  save(endpoint: string, partition: number, from: number, epoch: number): Promise<boolean> {
    const _id = idOf(endpoint, partition);
    return this.inTurn(_id, async () => {
      const replacement = { endpoint, partition, from, epoch, updated_at: this.clock.now() };
      try {
        await this.backlogs.replaceOne({ _id, ...noLaterThan(epoch) }, replacement, { upsert: true });
        return true;
      } catch (err) {
        return duplicateKeysOf(err).length === 0; // its upsert collided with a later owner's document
      }
    });
  }

  // The backlog caught up and is recorded: nothing of the endpoint is owed on the partition.
  async remove(endpoint: string, partition: number, epoch: number): Promise<void> {
    const _id = idOf(endpoint, partition);
    await this.inTurn(_id, () => this.backlogs.deleteOne({ _id, ...noLaterThan(epoch) }));
  }

  // A new owner's epoch on every backlog of the partition (before it reads them).
  async stamp(partition: number, epoch: number): Promise<void> {
    await this.backlogs.updateMany({ partition, ...noLaterThan(epoch - 1) }, { $set: { epoch } });
  }

  // Few documents (an endpoint's backlog per partition), read when partitions are assigned.
  forPartition(partition: number): Promise<DeliveryBacklogDoc[]> {
    return this.backlogs.find({ partition }).toArray();
  }

  private inTurn<T>(id: string, write: () => Promise<T>): Promise<T> {
    const next = (this.queued.get(id) ?? Promise.resolve()).then(write, write);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.queued.set(id, tail);
    void tail.then(() => {
      if (this.queued.get(id) === tail) this.queued.delete(id);
    });
    return next;
  }
}

const idOf = (endpoint: string, partition: number): string => `${endpoint}:p${partition}`;

function noLaterThan(epoch: number): Filter<DeliveryBacklogDoc> {
  return { epoch: { $lte: epoch } };
}

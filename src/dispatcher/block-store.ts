import type { Collection, Filter } from 'mongodb';
import { isDuplicateKey } from '../shared/mongo/client';
import type { DeliveryBlockDoc, PartitionEpochDoc } from '../shared/mongo/delivery-doc';
import type { BlockState } from './lead-lines';
import { systemClock, type Clock } from '../shared/clock';

// The leads whose callbacks wait behind a blocker (lead-lines.ts), persisted for the next owner of
// their partition. The only code that writes `delivery_blocks`; written on the failure path only.
//
// The store decides which owner may write them, not the owner's memory: an instance that lost its
// partition without knowing (frozen past its session, or cut off from Kafka) may still write. Each
// new owner of a partition takes the partition's next epoch and stamps the partition's blocks with
// it before it reads them; a write carries its owner's epoch and is refused by any block stamped
// with a later one.
export class BlockStore {
  constructor(
    private readonly blocks: Collection<DeliveryBlockDoc>,
    private readonly epochs: Collection<PartitionEpochDoc>,
    private readonly clock: Clock = systemClock,
  ) {}

  // The partition is this owner's from now on: its epoch, with every block of it stamped so.
  async claim(partition: number): Promise<number> {
    const taken = await this.epochs.findOneAndUpdate(
      { _id: `p${partition}` },
      { $inc: { epoch: 1 } },
      { upsert: true, returnDocument: 'after' },
    );
    const epoch = taken!.epoch;
    await this.blocks.updateMany({ partition, ...noLaterThan(epoch - 1) }, { $set: { epoch } });
    return epoch;
  }

  // Keyed by endpoint (delivery-kind.ts): a callback's is its partner id, as before postbacks.
  // False when a later owner of the partition holds the block: nothing written.
  async save(
    key: { endpoint: string; leadId: string },
    partition: number,
    block: BlockState | null,
    epoch: number,
  ): Promise<boolean> {
    const fence = { _id: `${key.endpoint}:${key.leadId}`, ...noLaterThan(epoch) };
    if (!block) {
      await this.blocks.deleteOne(fence);
      return true; // nothing to delete, or deleted: a later owner's block is left as it is either way
    }
    try {
      await this.blocks.replaceOne(
        fence,
        {
          partner_id: key.endpoint,
          lead_id: key.leadId,
          partition,
          blocker: block.blocker,
          held: block.held,
          epoch,
          updated_at: this.clock.now(),
        },
        { upsert: true },
      );
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false; // it exists with a later epoch: the upsert's insert collided
      throw err;
    }
  }

  // A small collection (only leads with a delivery on the retry path), read when partitions are assigned.
  forPartitions(partitions: readonly number[]): Promise<DeliveryBlockDoc[]> {
    return this.blocks.find({ partition: { $in: [...partitions] } }).toArray();
  }
}

function noLaterThan(epoch: number): Filter<DeliveryBlockDoc> {
  return { $or: [{ epoch: { $lte: epoch } }, { epoch: { $exists: false } }] };
}

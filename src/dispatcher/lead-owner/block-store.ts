import type { AnyBulkWriteOperation, Collection, Filter } from 'mongodb';
import { duplicateKeysOf } from '../../shared/mongo/bulk';
import type { DeliveryBlockDoc, PartitionEpochDoc } from '../../shared/mongo/delivery-doc';
import type { BlockState } from './lead-lines';
import { systemClock, type Clock } from '../../shared/clock';
import { WriteBatch } from '../../shared/mongo/write-batch';

interface BlockSave {
  key: { endpoint: string; leadId: string };
  partition: number;
  block: BlockState | null;
  epoch: number;
  fenced?: () => boolean; // asked as the batch is written: its assignment was handed over (not written)
}

const idOf = (key: BlockSave['key']): string => `${key.endpoint}:${key.leadId}`;

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

  private readonly batch = new WriteBatch<BlockSave, boolean>(
    (saves) => this.write(saves),
    (save) => idOf(save.key),
  );

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
  // False when a later owner of the partition holds the block: nothing written. Written with the
  // other leads' blocks of a few milliseconds in one bulk write (write-batch.ts): a partner whose
  // backlog is set aside costs a command per batch of leads, not one per lead.
  save(
    key: BlockSave['key'],
    partition: number,
    block: BlockState | null,
    epoch: number,
    fenced?: () => boolean,
  ): Promise<boolean> {
    return this.batch.add({ key, partition, block, epoch, fenced });
  }

  private async write(all: BlockSave[]): Promise<boolean[]> {
    const saves = all.filter((s) => !s.fenced?.());
    if (saves.length > 0) {
      try {
        await this.blocks.bulkWrite(
          saves.map((s) => this.op(s)),
          { ordered: false },
        );
      } catch (err) {
        duplicateKeysOf(err); // anything else is thrown
        // A block exists with a later epoch (an upsert's insert collided). Which one is not told
        // alike by every store (the local one names the first operation and stops there): the
        // batch is written again one block at a time, each write the same whatever went before.
        const written = await Promise.all(saves.map((s) => this.writeOne(s)));
        return all.map((s) => written[saves.indexOf(s)] ?? false);
      }
    }
    return all.map((s) => saves.includes(s));
  }

  private async writeOne(save: BlockSave): Promise<boolean> {
    try {
      await this.blocks.bulkWrite([this.op(save)]);
      return true;
    } catch (err) {
      return duplicateKeysOf(err).length === 0;
    }
  }

  private op({ key, partition, block, epoch }: BlockSave): AnyBulkWriteOperation<DeliveryBlockDoc> {
    const filter = { _id: idOf(key), ...noLaterThan(epoch) };
    if (!block) return { deleteOne: { filter } }; // a later owner's block is left as it is
    const replacement = {
      partner_id: key.endpoint,
      lead_id: key.leadId,
      partition,
      blocker: block.blocker,
      held: block.held,
      epoch,
      updated_at: this.clock.now(),
    };
    return { replaceOne: { filter, replacement, upsert: true } };
  }

  // A small collection (only leads with a delivery on the retry path), read when partitions are assigned.
  forPartitions(partitions: readonly number[]): Promise<DeliveryBlockDoc[]> {
    return this.blocks.find({ partition: { $in: [...partitions] } }).toArray();
  }
}

function noLaterThan(epoch: number): Filter<DeliveryBlockDoc> {
  return { $or: [{ epoch: { $lte: epoch } }, { epoch: { $exists: false } }] };
}

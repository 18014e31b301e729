import type { Collection } from 'mongodb';
import type { DeliveryBlockDoc } from '../shared/mongo/documents';
import type { BlockState } from './lead-lines';
import { systemClock, type Clock } from '../shared/clock';

// The leads whose callbacks wait behind a blocker (lead-lines.ts), persisted for the next owner of
// their partition. The only code that writes `delivery_blocks`; written on the failure path only.
export class BlockStore {
  constructor(private readonly blocks: Collection<DeliveryBlockDoc>, private readonly clock: Clock = systemClock) {}

  // Keyed by endpoint (delivery-kind.ts): a callback's is its partner id, as before postbacks.
  async save(key: { endpoint: string; leadId: string }, partition: number, block: BlockState | null): Promise<void> {
    const _id = `${key.endpoint}:${key.leadId}`;
    if (!block) {
      await this.blocks.deleteOne({ _id });
      return;
    }
    await this.blocks.replaceOne(
      { _id },
      { partner_id: key.endpoint, lead_id: key.leadId, partition, blocker: block.blocker, held: block.held, updated_at: this.clock.now() },
      { upsert: true },
    );
  }

  // A small collection (only leads with a delivery on the retry path), read when partitions are assigned.
  forPartitions(partitions: readonly number[]): Promise<DeliveryBlockDoc[]> {
    return this.blocks.find({ partition: { $in: [...partitions] } }).toArray();
  }
}

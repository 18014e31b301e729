import type { Collection } from 'mongodb';
import { isDuplicateKey } from '../shared/mongo/client';
import type { IdBlockDoc } from '../shared/mongo/documents';

// Lead numbers come in blocks, so ids are unique across processor instances without a database
// round trip per lead. A block is taken by inserting its number under a unique index, the one
// write FerretDB 1.x performs atomically (its $inc is a read-then-rewrite that loses updates under
// concurrency). Numbers left in a block when a processor stops are skipped: ids are unique and
// increasing per instance, not gap-free.
export class IdAllocator {
  private next = 0;
  private end = 0; // exclusive
  private refill: Promise<void> | null = null;

  constructor(private readonly blocks: Collection<IdBlockDoc>, private readonly sequence: string, private readonly blockSize: number) {}

  async allocate(): Promise<number> {
    while (this.next >= this.end) {
      this.refill ??= this.takeBlock().finally(() => {
        this.refill = null;
      });
      await this.refill;
    }
    return this.next++;
  }

  private async takeBlock(): Promise<void> {
    const [last] = await this.blocks.find({ sequence: this.sequence }).sort({ block: -1 }).limit(1).toArray();
    for (let block = (last?.block ?? -1) + 1; ; block++) {
      try {
        await this.blocks.insertOne({ _id: `${this.sequence}:${block}`, sequence: this.sequence, block, taken_at: new Date() });
      } catch (err) {
        if (isDuplicateKey(err)) continue; // another instance took it first
        throw err;
      }
      this.next = block * this.blockSize + 1;
      this.end = (block + 1) * this.blockSize + 1;
      return;
    }
  }
}

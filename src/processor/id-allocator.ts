import type { Collection } from 'mongodb';
import { isDuplicateKey } from '../shared/mongo/client';
import type { IdBlockDoc } from '../shared/mongo/documents';
import { systemClock, type Clock } from '../shared/clock';

// Lead numbers come in blocks, so ids are unique across processor instances without a database
// round trip per lead. A block is taken by inserting its number under a unique index, which also
// keeps the block's record. Each block records the range it hands out, and block n+1 starts where block n
// ends, read from block n's own document: instances with different ID_BLOCK_SIZE values (a rolling
// config change) chain their ranges instead of computing overlapping ones from the block number.
// Numbers left in a block when a processor stops are skipped: ids are unique and increasing per
// instance, not gap-free.
export class IdAllocator {
  private next = 0;
  private end = 0; // exclusive
  private refill: Promise<void> | null = null;

  constructor(
    private readonly blocks: Collection<IdBlockDoc>,
    private readonly sequence: string,
    private readonly blockSize: number,
    private readonly clock: Clock = systemClock,
  ) {}

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
    for (;;) {
      // Read again after every collision: the next block's range starts at the end of the newest one.
      const [last] = await this.blocks.find({ sequence: this.sequence }).sort({ block: -1 }).limit(1).toArray();
      const block = (last?.block ?? -1) + 1;
      const first = last ? endOf(last, this.blockSize) : 1;
      const end = first + this.blockSize;
      try {
        await this.blocks.insertOne({
          _id: `${this.sequence}:${block}`,
          sequence: this.sequence,
          block,
          first,
          end,
          taken_at: this.clock.now(),
        });
      } catch (err) {
        if (isDuplicateKey(err)) continue; // another instance took it first
        throw err;
      }
      this.next = first;
      this.end = end;
      return;
    }
  }
}

// Blocks written before ranges were recorded were sized by ID_BLOCK_SIZE: assume it has not changed.
function endOf(doc: IdBlockDoc, blockSize: number): number {
  return doc.end ?? (doc.block + 1) * blockSize + 1;
}

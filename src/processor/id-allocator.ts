import type { Collection } from 'mongodb';
import { isDuplicateKey } from '../shared/mongo/client';
import type { CounterDoc } from '../shared/mongo/documents';

// Lead numbers come in blocks reserved by one atomic $inc on a counter document, so ids are unique
// across processor instances without a database round trip per lead. Numbers left in a block when
// a processor stops are skipped: ids are unique and increasing per instance, not gap-free.
export class IdAllocator {
  private next = 0;
  private end = 0; // exclusive
  private refill: Promise<void> | null = null;

  constructor(private readonly counters: Collection<CounterDoc>, private readonly name: string, private readonly blockSize: number) {}

  async init(): Promise<void> {
    try {
      await this.counters.insertOne({ _id: this.name, value: 0 });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  async allocate(): Promise<number> {
    while (this.next >= this.end) {
      this.refill ??= this.reserveBlock().finally(() => {
        this.refill = null;
      });
      await this.refill;
    }
    return this.next++;
  }

  private async reserveBlock(): Promise<void> {
    const doc = await this.counters.findOneAndUpdate({ _id: this.name }, { $inc: { value: this.blockSize } }, { returnDocument: 'after' });
    if (!doc) throw new Error(`counter ${this.name} is missing`);
    this.next = doc.value - this.blockSize + 1;
    this.end = doc.value + 1;
  }
}

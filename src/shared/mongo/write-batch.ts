// Writes (or reads by _id) gathered for a few milliseconds (or until there are enough) and made in one
// database command: the cost of a path that makes one write or read per delivery or per lead is then
// a command per batch, not per item. Batches are written one after another, in the order their items came;
// two writes of one key never share a batch (an unordered bulk write would not keep their order).
const FLUSH_AFTER_MS = 5;
const FLUSH_AT = 200;

interface Waiting<I, O> {
  input: I;
  resolve(out: O): void;
  reject(err: unknown): void;
}

export class WriteBatch<I, O> {
  private queue: Waiting<I, O>[] = [];
  private readonly keys = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  // `write` answers each input of a batch, in order; if it throws, each of the batch's adds rejects.
  constructor(
    private readonly write: (batch: I[]) => Promise<O[]>,
    private readonly keyOf?: (input: I) => string,
  ) {}

  add(input: I): Promise<O> {
    const key = this.keyOf?.(input);
    if (key !== undefined && this.keys.has(key)) this.flushNow();
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (key !== undefined) this.keys.add(key);
      if (this.queue.length >= FLUSH_AT) this.flushNow();
      else this.timer ??= setTimeout(() => this.flushNow(), FLUSH_AFTER_MS);
    });
  }

  // Waits for everything added so far to be written.
  async drain(): Promise<void> {
    this.flushNow();
    await this.flushing;
  }

  private flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    this.queue = [];
    this.keys.clear();
    if (batch.length === 0) return;
    this.flushing = this.flushing.then(() => this.settle(batch));
  }

  private async settle(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const out = await this.write(batch.map((w) => w.input));
      batch.forEach((w, i) => w.resolve(out[i] as O));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}

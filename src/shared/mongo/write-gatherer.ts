// One write a caller asked for, with what settles its promise.
interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(err: unknown): void;
}

// What one gathered write did for each item, in order: null where it was written, the error where not.
export type ItemOutcomes = readonly (Error | null)[];

// Gathers single writes asked one at a time (one per request) into one store command: the ones
// asked within `gatherMs` of the first, and any asked while that command is in flight, leave
// together in the next, at most `max` at a time. A caller waits at most `gatherMs` longer than its
// own command would have taken, and its promise settles with its own item's outcome.
export class WriteGatherer<T> {
  private queue: Waiting<T>[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing = false;

  constructor(
    private readonly writeAll: (items: T[]) => Promise<ItemOutcomes>,
    private readonly gatherMs: number,
    private readonly max = 500,
  ) {}

  put(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.writing && this.timer === null) this.timer = setTimeout(() => void this.flush(), this.gatherMs);
    });
  }

  private async flush(): Promise<void> {
    this.timer = null;
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.max);
      try {
        const outcomes = await this.writeAll(batch.map((w) => w.item));
        batch.forEach((w, i) => {
          const err = outcomes[i];
          if (err) w.reject(err);
          else w.resolve();
        });
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.writing = false;
  }
}

// Batches of one partition number (from any of the co-partitioned topics) run one after another.
export class PartitionTurns {
  private readonly tails = new Map<number, Promise<unknown>>();

  run<R>(partition: number, work: () => Promise<R>): Promise<R> {
    const previous = this.tails.get(partition) ?? Promise.resolve();
    const next = previous.then(work);
    const tail = next.catch(() => undefined);
    this.tails.set(partition, tail);
    void tail.then(() => {
      if (this.tails.get(partition) === tail) this.tails.delete(partition);
    });
    return next;
  }
}

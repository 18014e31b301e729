// Work a role starts beside a batch and no caller awaits (a replay job's run, a test callback): kept
// until it settles, so a stop waits for it instead of leaving it floating, and its failure handled.
export class Background {
  private readonly running = new Set<Promise<void>>();

  run(work: () => Promise<unknown>, onError: (err: unknown) => unknown): void {
    const settled: Promise<void> = Promise.resolve()
      .then(work)
      .then(
        () => undefined,
        async (err: unknown) => {
          await onError(err);
        },
      )
      .catch(() => undefined) // onError itself failed: nothing more to tell
      .finally(() => this.running.delete(settled));
    this.running.add(settled);
  }

  get size(): number {
    return this.running.size;
  }

  // Once every piece of work started so far, and any it started meanwhile, has settled.
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}

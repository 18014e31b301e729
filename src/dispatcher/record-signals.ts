// Who waits for a delivery record to be written in this process, by its id: a retry task whose
// record (written after the task is published) is not there yet is woken by the write itself,
// not by reading the store again and again. A write by another process is not heard here: the
// waiter's own timeout covers it.
export class RecordSignals {
  private readonly waiters = new Map<string, Set<() => void>>();

  // `written` resolves at the next write of `id` in this process, or after `timeoutMs`, whichever
  // comes first; `cancel` resolves it now (the waiter needs it no more).
  next(id: string, timeoutMs: number): { written: Promise<void>; cancel(): void } {
    let cancel = () => {};
    const written = new Promise<void>((resolve) => {
      const set = this.waiters.get(id) ?? new Set();
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs).unref();
      set.add(done);
      this.waiters.set(id, set);
      cancel = done;
    });
    return { written, cancel };
  }

  written(ids: Iterable<string>): void {
    for (const id of ids) for (const done of [...(this.waiters.get(id) ?? [])]) done();
  }

  get waiting(): number {
    return this.waiters.size;
  }
}

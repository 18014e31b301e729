// The commit position of one partition when records finish out of order: offsets are tracked in
// the order they were handed out, each is marked done once what it started is recorded for good,
// and only the offset after the longest done prefix may be committed. A crash then replays every
// record not yet done (and some done ones after the first gap: their handlers must be idempotent).
interface Entry {
  offset: bigint;
  done: boolean;
}

export class OffsetWatermark {
  private readonly entries: Entry[] = []; // tracked and not yet committed, in offset order
  private readonly byOffset = new Map<string, Entry>();
  private prefix = 0; // entries[0..prefix) are done

  // Offsets must be tracked in increasing order; tracking one again (a re-fetch) is a no-op.
  track(offset: string): void {
    if (this.byOffset.has(offset)) return;
    const value = BigInt(offset);
    const last = this.entries[this.entries.length - 1];
    if (last && value <= last.offset) throw new Error(`offset ${offset} tracked after ${last.offset}`);
    const entry = { offset: value, done: false };
    this.entries.push(entry);
    this.byOffset.set(offset, entry);
  }

  done(offset: string): void {
    const entry = this.byOffset.get(offset);
    if (!entry) return; // committed already, or tracked by an earlier generation
    entry.done = true;
    while (this.entries[this.prefix]?.done) this.prefix++;
  }

  // Tracked offsets not committed yet: what a crash would replay at most.
  get uncommitted(): number {
    return this.entries.length;
  }

  // The offset to commit (the next one to read), or null when the done prefix is empty.
  toCommit(): string | null {
    const last = this.entries[this.prefix - 1];
    return last ? String(last.offset + 1n) : null;
  }

  // After a successful commit of `next` (a value toCommit gave): forget what it covers.
  committed(next: string): void {
    const bound = BigInt(next);
    let n = 0;
    while (n < this.prefix && (this.entries[n] as Entry).offset < bound) n++;
    for (const e of this.entries.splice(0, n)) this.byOffset.delete(String(e.offset));
    this.prefix -= n;
  }
}

// An endpoint's backlog on one partition of leads.events, under one assignment: from `start` on,
// the partition's consumer sets the endpoint's events aside without a write each (its circuit is
// open, or its queue full), and they are read back from Kafka at the endpoint's pace
// (backlog-replay.ts), so every other endpoint's events on the partition go on at once.
export interface Backlog {
  endpoint: string;
  partition: number;
  start: number; // the consumer sets the endpoint's events aside from this offset on
  next: number; // the first offset not read back yet
  // Caught up: the consumer handles the endpoint's events again; kept until what was read back is recorded.
  merged: boolean;
  // Read back only once the consumer has decided everything before its start and handed those
  // deliveries to their lines (a lead's earlier events go first: batchDone).
  readable: boolean;
  // Stopped until its endpoint takes more (held, its probe out, its queue full, or too much pending).
  waiting: boolean;
  pending: number[]; // offsets read back whose deliveries are not recorded yet, in order
  saved: Promise<boolean>; // its document is written (false: a later owner has the partition)
  savedFrom: number; // the start last saved, and when (backlog-replay.ts saves it about once a second)
  savedAt: number;
}

// What the partition's consumer does with an event of the endpoint at an offset.
export type Intake = 'handle' | 'set-aside' | 'read-back';

// The backlogs of the partitions of one assignment, by endpoint and partition, and how far the
// partition's consumer has decided (`seen`). Memory only; what outlives the assignment is each
// backlog's start in the store (backlog-store.ts). No I/O.
export class EndpointBacklogs {
  private readonly all = new Map<string, Backlog>();
  private readonly seenUpTo = new Map<number, number>(); // the next offset the consumer decides, by partition

  get size(): number {
    return this.all.size;
  }

  get(endpoint: string, partition: number): Backlog | undefined {
    return this.all.get(keyOf(endpoint, partition));
  }

  ofEndpoint(endpoint: string): Backlog[] {
    return [...this.all.values()].filter((b) => b.endpoint === endpoint);
  }

  onPartition(partition: number): Backlog[] {
    return [...this.all.values()].filter((b) => b.partition === partition);
  }

  // The consumer's decision for an event of `endpoint` at `offset`: set aside while a backlog that
  // has not caught up covers it; skipped where the backlog read it back already (its delivery is the
  // backlog's, under way or recorded: taking it again could send it twice, once it was recorded
  // while the consumer looked it up). An offset read back already also means the backlog caught up:
  // the consumer handles the endpoint's events again after it.
  intake(endpoint: string, partition: number, offset: number): Intake {
    const b = this.get(endpoint, partition);
    if (!b || offset < b.start) return 'handle';
    if (offset < b.next) {
      b.merged = true;
      return 'read-back';
    }
    return b.merged ? 'handle' : 'set-aside';
  }

  // The consumer decided everything of the partition before `offset` + 1.
  saw(partition: number, offset: number): void {
    this.seenUpTo.set(partition, Math.max(offset + 1, this.seenUpTo.get(partition) ?? 0));
  }

  // Read back only once the consumer decided everything before its start and handed its own
  // deliveries to their lines (a lead's earlier events go first): at the end of a batch.
  batchDone(partition: number): void {
    const seen = this.seenUpTo.get(partition) ?? -1;
    for (const b of this.onPartition(partition)) if (!b.readable && seen >= b.start) b.readable = true;
  }

  // Opens the endpoint's backlog at `offset` (or opens again one that caught up and is still
  // recording: what it read back stays owed until recorded, so its saved start never moves past it).
  open(endpoint: string, partition: number, offset: number, save: (from: number) => Promise<boolean>): Backlog {
    const found = this.get(endpoint, partition);
    if (found && !found.merged) return found;
    const b = found ?? this.fresh(endpoint, partition, offset, false);
    Object.assign(b, { start: offset, next: offset, merged: false, readable: false, waiting: false });
    this.all.set(keyOf(endpoint, partition), b);
    b.saved = save(savedFrom(b));
    return b;
  }

  // A backlog whose start was read back from the store, at an assignment: readable at once when the
  // consumer's group committed past its start (every event before it is recorded), else once the
  // consumer has come to it (batchDone).
  restore(endpoint: string, partition: number, from: number, committed: number): Backlog {
    this.saw(partition, committed - 1); // the consumer decides from there on: read back to it, it has caught up
    const b = this.fresh(endpoint, partition, from, committed >= from);
    this.all.set(keyOf(endpoint, partition), b);
    return b;
  }

  private fresh(endpoint: string, partition: number, from: number, readable: boolean): Backlog {
    const saved = Promise.resolve(true);
    return {
      endpoint,
      partition,
      start: from,
      next: from,
      merged: false,
      readable,
      waiting: false,
      pending: [],
      saved,
      savedFrom: from,
      savedAt: 0,
    };
  }

  // Read back up to `offset`; those of its deliveries not recorded yet are pending until settled.
  readBack(b: Backlog, offset: number, owes: boolean): void {
    b.next = offset + 1;
    if (owes) b.pending.push(offset);
  }

  settled(b: Backlog, offset: number): void {
    const i = b.pending.indexOf(offset);
    if (i >= 0) b.pending.splice(i, 1);
  }

  // Read back to where the consumer has decided: it handles the endpoint's events from there on.
  caughtUp(b: Backlog): boolean {
    const seen = this.seenUpTo.get(b.partition);
    if (!b.merged && seen !== undefined && b.next >= seen) b.merged = true;
    return b.merged;
  }

  // Caught up and everything read back recorded: its document may go.
  done(b: Backlog): boolean {
    return b.merged && b.pending.length === 0;
  }

  remove(b: Backlog): void {
    if (this.get(b.endpoint, b.partition) === b) this.all.delete(keyOf(b.endpoint, b.partition));
  }
}

// Where the backlog starts in the store: the first offset whose delivery may not be recorded yet.
export const savedFrom = (b: Backlog): number => Math.min(b.pending[0] ?? b.next, b.next);

const keyOf = (endpoint: string, partition: number): string => `${endpoint}:p${partition}`;

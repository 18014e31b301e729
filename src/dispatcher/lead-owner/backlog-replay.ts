import type { Decoded } from '../../shared/kafka/batch-types';
import type { Logger } from '../../shared/logger';
import type { LeadEvent } from '../../shared/schemas';
import { untilDone } from '../../shared/retriable';
import type { DeliveryScheduler } from '../delivery-scheduler';
import type { EndpointHold } from '../endpoint-hold';
import type { BacklogStore } from './backlog-store';
import { savedFrom, type Backlog } from './endpoint-backlogs';
import type { Wanted } from './rounds';
import type { OwnedPartitions } from './owned-partitions';

// What the replay needs of the lead owner: the current assignment, the deliveries events make, and
// the owner's own way in for a delivery (the look-up of what is recorded, then its lead's line).
export interface ReplayOwner {
  current(): OwnedPartitions;
  deliveries(events: LeadEvent[]): Promise<Wanted[][]>;
  lookUp(a: OwnedPartitions, ids: string[]): Promise<LookedUp>;
  arrive(a: OwnedPartitions, wanted: Wanted, partition: number, facts: LookedUp): Promise<void> | undefined;
}

// A consumer's batch sorted: the deliveries it handles, by event, and what each event's offset
// waits for besides (undefined: nothing set aside).
export interface SortedBatch {
  handled: Wanted[][];
  aside: (Promise<unknown> | undefined)[];
}

export interface LookedUp {
  known: Set<string>; // recorded already
  underWay: Set<string>; // active when the look-up started
}

export interface ReplayDeps {
  backlogStore: BacklogStore;
  hold: EndpointHold;
  scheduler: DeliveryScheduler;
  logger: Logger;
}

// The part of the partition reader the replay drives (partition-reader.ts).
export interface Reader {
  read(partition: number, offset: number): void;
  position(partition: number): number | undefined;
  halt(partition: number): void;
  haltAll(): void;
}

// Deliveries read back and not yet recorded, a backlog at most: bounds the memory it takes.
const MAX_PENDING = 2000;
// A backlog's start is saved this often at most while it is read back.
const SAVE_EVERY_MS = 1000;
// Never resolves: an event set aside in a backlog a later owner holds stays uncommitted.
const NEVER = new Promise<never>(() => undefined);
// Read back by the backlog already: not the consumer's to take, nothing more to wait for.
const READ_BACK = Promise.resolve(undefined);

// An endpoint's backlogs (endpoint-backlogs.ts), in and out. In: an event of an endpoint that cannot
// take it now (its circuit open, or its queue full) opens the endpoint's backlog on its partition,
// and from then on the partition's consumer sets the endpoint's events aside with no write each;
// their offsets move once the backlog's start is saved. Out: the backlog is read back from Kafka by
// a reader of its own, as fast as the endpoint takes deliveries (room in its queue; one probe while
// its circuit's probe is due; none while held), each delivery joining its lead's line as the
// consumer's would, until it has caught up with the consumer.
export class BacklogReplay {
  private reader: Reader | null = null;
  private readonly probing = new Set<string>(); // endpoints whose probe was read back
  private readonly roomWaits = new Set<string>();

  constructor(
    private readonly owner: ReplayOwner,
    private readonly deps: ReplayDeps,
  ) {}

  attach(reader: Reader): void {
    this.reader = reader;
  }

  // The consumer's batch, its events' deliveries at their offsets: those it handles now, and for
  // each event what its offset waits for besides (its deliveries set aside: the backlog's start saved).
  intakeBatch(a: OwnedPartitions, partition: number, offsets: number[], wanted: Wanted[][]): SortedBatch {
    const taken = new Map<string, number>(); // handled by this batch: not in the endpoint's queue yet
    const aside: (Promise<unknown> | undefined)[] = [];
    const handled = wanted.map((ws, i) => {
      const offset = offsets[i] as number;
      a.backlogs.saw(partition, offset);
      const waits = ws.map((w) => this.intake(a, w, partition, offset, taken));
      aside.push(waits.find((w) => w !== undefined));
      return ws.filter((_, n) => waits[n] === undefined);
    });
    return { handled, aside };
  }

  // One delivery's: undefined to handle it, else the promise its offset waits for (none for one
  // the backlog read back already: its start, saved, stays at or before it until it is recorded).
  private intake(a: OwnedPartitions, w: Wanted, partition: number, offset: number, taken: Map<string, number>) {
    const { hold, scheduler } = this.deps;
    let verdict = a.backlogs.intake(w.endpoint, partition, offset);
    if (verdict === 'read-back') return READ_BACK;
    if (verdict === 'handle') {
      const full = scheduler.room(w.endpoint) - (taken.get(w.endpoint) ?? 0) <= 0;
      if (hold.setsAside(w.endpoint) || full) {
        a.backlogs.open(w.endpoint, partition, offset, (from) => this.save(a, w.endpoint, partition, from));
        this.deps.logger.info(
          { endpoint: w.endpoint, partition, offset, reason: full ? 'queue_full' : 'circuit_open' },
          'endpoint backlog opened: its events are set aside and read back at its pace',
        );
        verdict = 'set-aside';
      }
    }
    if (verdict === 'handle') {
      taken.set(w.endpoint, (taken.get(w.endpoint) ?? 0) + 1);
      return undefined;
    }
    const b = a.backlogs.get(w.endpoint, partition) as Backlog;
    return b.saved.then((saved) => (saved ? undefined : NEVER));
  }

  // The consumer's batch has handed its deliveries to their lines: what it set aside may be read.
  opened(a: OwnedPartitions, partition: number): void {
    a.backlogs.batchDone(partition);
    for (const b of a.backlogs.onPartition(partition)) if (b.readable && a.backlogs.caughtUp(b)) this.progress(a, b); // read back past this batch already
    this.readFrom(a, partition);
  }

  // A backlog saved by an earlier owner of the partition, read back from its start (`committed`:
  // where the consumer's group starts on the partition).
  restore(a: OwnedPartitions, endpoint: string, partition: number, from: number, committed: number): void {
    a.backlogs.restore(endpoint, partition, from, committed);
    this.readFrom(a, partition);
  }

  // The endpoint may take more (resumed, its probe due, its circuit closed).
  released(endpoint: string): void {
    this.probing.delete(endpoint);
    this.wake(this.owner.current(), endpoint);
  }

  // A hand-over: the next assignment reads its backlogs back from the store.
  handOver(): void {
    this.reader?.haltAll();
  }

  // The reader's records of a partition, from where it was asked: each backlog of the partition
  // takes its endpoint's deliveries from its own next offset on, while the endpoint takes them.
  async take(partition: number, records: Decoded<LeadEvent>[]): Promise<number> {
    const a = this.owner.current();
    const backlogs = () => a.backlogs.onPartition(partition).filter((b) => !b.merged && b.readable && !b.waiting);
    if (!a.work.open || backlogs().length === 0) return 0;
    const wanted = await this.owner.deliveries(records.map((r) => r.value));
    const ids = wanted.flatMap((ws) => ws.filter((w) => a.backlogs.get(w.endpoint, partition)).map((w) => w.id));
    const facts = await this.owner.lookUp(a, ids);
    if (a !== this.owner.current() || !a.work.open) return 0;
    const going = new Set(backlogs());
    let taken = records.length;
    for (let i = 0; i < records.length && going.size > 0; i++) {
      const offset = Number((records[i] as Decoded<LeadEvent>).message.offset);
      for (const b of going) {
        if (b.merged) going.delete(b);
        else if (b.next <= offset) this.readBack(a, b, offset, wanted[i] as Wanted[], facts, going);
      }
      if (going.size === 0) taken = i;
    }
    for (const b of a.backlogs.onPartition(partition)) {
      a.backlogs.caughtUp(b);
      this.progress(a, b);
    }
    if (backlogs().length === 0) this.reader?.halt(partition); // every backlog caught up, or waiting
    return taken;
  }

  private readBack(
    a: OwnedPartitions,
    b: Backlog,
    offset: number,
    wanted: Wanted[],
    facts: LookedUp,
    going: Set<Backlog>,
  ) {
    const mine = wanted.filter((w) => w.endpoint === b.endpoint);
    if (mine.length > 0 && !this.mayGo(a, b)) {
      b.waiting = true;
      going.delete(b);
      return;
    }
    const recordings = mine.map((w) => this.owner.arrive(a, w, b.partition, facts)).filter((r) => r !== undefined);
    a.backlogs.readBack(b, offset, recordings.length > 0);
    if (recordings.length === 0) return;
    // Bookkeeping only, not work the hand-over waits for: a delivery this owner never records (left
    // unstarted at a hand-over) never settles, and the next owner reads the backlog back from its start.
    void Promise.all(recordings).then(() => {
      a.backlogs.settled(b, offset);
      this.progress(a, b);
      if (b.pending.length === MAX_PENDING - 1) this.wake(a, b.endpoint);
    });
  }

  // Whether the backlog's endpoint takes one more delivery now.
  private mayGo(a: OwnedPartitions, b: Backlog): boolean {
    const { hold, scheduler } = this.deps;
    if (b.pending.length >= MAX_PENDING) return false;
    const pace = hold.pace(b.endpoint);
    if (pace === 'none' || this.probing.has(b.endpoint)) return false;
    if (pace === 'probe') {
      this.probing.add(b.endpoint); // its answer releases the endpoint again
      return true;
    }
    if (scheduler.room(b.endpoint) > 0) return true;
    this.whenRoom(a, b.endpoint);
    return false;
  }

  private whenRoom(a: OwnedPartitions, endpoint: string): void {
    if (this.roomWaits.has(endpoint)) return;
    this.roomWaits.add(endpoint);
    const waited = this.deps.scheduler.untilRoom(endpoint).then(() => {
      this.roomWaits.delete(endpoint);
      this.wake(this.owner.current(), endpoint);
    });
    a.work.track(waited);
  }

  private wake(a: OwnedPartitions, endpoint: string): void {
    if (!a.work.open) return;
    for (const b of a.backlogs.ofEndpoint(endpoint)) {
      b.waiting = false;
      if (!b.merged && b.readable) this.readFrom(a, b.partition);
    }
  }

  // Reads the partition from its furthest-behind backlog that may be read, unless the reader is there already.
  private readFrom(a: OwnedPartitions, partition: number): void {
    const behind = a.backlogs.onPartition(partition).filter((b) => !b.merged && b.readable && !b.waiting);
    if (!this.reader || behind.length === 0 || !a.work.open) return;
    const from = Math.min(...behind.map((b) => b.next));
    const at = this.reader.position(partition);
    if (at === undefined || at > from) this.reader.read(partition, from);
  }

  // Saves how far the backlog is recorded (about once a second), or removes it once it caught up.
  private progress(a: OwnedPartitions, b: Backlog): void {
    if (!a.work.open) return;
    if (a.backlogs.done(b)) {
      a.backlogs.remove(b);
      const removed = untilDone(
        () => this.deps.backlogStore.remove(b.endpoint, b.partition, a.epochOf(b.partition)),
        this.retrying(b.endpoint, b.partition, 'remove'),
      );
      a.work.track(removed);
      return;
    }
    const from = savedFrom(b);
    if (from <= b.savedFrom || Date.now() - b.savedAt < SAVE_EVERY_MS) return;
    b.saved = this.save(a, b.endpoint, b.partition, from);
    a.work.track(b.saved);
  }

  private save(a: OwnedPartitions, endpoint: string, partition: number, from: number): Promise<boolean> {
    const b = a.backlogs.get(endpoint, partition);
    if (b) Object.assign(b, { savedFrom: from, savedAt: Date.now() });
    return untilDone(
      () => this.deps.backlogStore.save(endpoint, partition, from, a.epochOf(partition)),
      this.retrying(endpoint, partition, 'save'),
    );
  }

  private retrying(endpoint: string, partition: number, what: string) {
    return (err: unknown, attempt: number) =>
      this.deps.logger.warn({ endpoint, partition, attempt, err: (err as Error).message }, `backlog ${what} retried`);
  }
}

import { HELD_FOR_PAUSED_ENDPOINT, type DeliveryDoc, type DeliveryState } from '../../shared/mongo/delivery-doc';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { untilDone } from '../../shared/retriable';
import type { BlockStore } from './block-store';
import type { Attempted } from '../delivery-attempt';
import { newDeliveryDoc, type DeliveryStore, type FirstRecord } from '../delivery-store';
import { WriteBatch } from '../../shared/mongo/write-batch';
import type { Item, OwnedPartitions } from './owned-partitions';
import type { BlockState } from './lead-lines';
import type { DispatcherMetrics } from '../metrics';
import type { RecordedAttempt, RetrySchedule } from '../retry-policy';

// A write of a delivery's record.
export type RecordWrite =
  | { insert: FirstRecord } // its first record, in bulk with others
  | { attempt: Attempted } // one more attempt on the record it has
  | { hold: string } // its record, held behind this blocker
  | { awaitRetry: Date }; // its record, due on the first retry tier

// Not attempted now: on the first retry tier until dueAt, or held behind a blocker or a paused endpoint.
export type SetAside = { dueAt: Date } | { heldBy: string };

// The write that sets a delivery aside (null: its record says so already).
export function setAsideWrite(doc: DeliveryDoc | null, how: SetAside): RecordWrite | null {
  if (doc === null) return { insert: how };
  if ('dueAt' in how) return { awaitRetry: how.dueAt };
  return doc.held_by !== how.heldBy ? { hold: how.heldBy } : null;
}

// An attempt's outcome that came after its assignment's lease ran out (sent while it held): a
// delivery has its record written where the store lets it, so the next owner finds it delivered
// rather than sending it again; any other outcome would need its retry task or dead letter published
// by an owner that lost the partition, so it is dropped and the next owner attempts it again.
export const recordedLate = <T extends Pick<Attempted, 'decision'>>(done: T | 'held'): done is T =>
  done !== 'held' && done.decision.state === 'delivered';

// An attempt's outcome as its record takes it.
type LateAttempt = Pick<Attempted, 'at' | 'decision'> & { result: RecordedAttempt };

// The checks an attempt's outcome passes on its way to its record: right after the attempt, once
// its lead's earlier writes are done, and as its first record is inserted. An attempt stops at the
// first that is fenced (a held one's own record is checked as 'held record', before 'record').
const OUTCOME_WRITES = new Set(['attempt', 'record']);

type RecordDeps = { store: DeliveryStore; logger: Logger; metrics: Pick<DispatcherMetrics, 'attemptsUnrecorded'> };

// Held behind its lead's blocker, or for its paused or tripped endpoint (HELD_FOR_PAUSED_ENDPOINT:
// a park): unattempted, fenced like an attempt's record.
export async function holdRecord(deps: RecordDeps, record: DeliveryDoc, blocker: string): Promise<void> {
  const what = blocker === HELD_FOR_PAUSED_ENDPOINT ? 'park' : 'hold';
  await untilDone(() => deps.store.markHeld(record, blocker), retrying(deps.logger, what));
}

// One more attempt on a delivery's record (a retry, a held one's turn, a fresh round). The store
// refuses it if another owner recorded this attempt meanwhile (delivery-store.ts): this owner lost
// the lead's partitions without knowing, or the other did; both sent it, and this outcome is counted
// as unrecorded. False then, and the caller's task is stale.
export async function recordAttempt(deps: RecordDeps, record: DeliveryDoc, done: Attempted): Promise<boolean> {
  const written = await untilDone(
    () => deps.store.recordAttempt(record, done.at, done.result, done.decision),
    retrying(deps.logger, 'record attempt'),
  );
  if (written) return true;
  deps.logger.warn(
    { delivery_id: record._id },
    'the record moved on meanwhile (another owner recorded this attempt): this one is refused',
  );
  deps.metrics.attemptsUnrecorded.inc();
  return false;
}

// The record of a held delivery or of a fresh round: it exists (read before the item was made).
function recordOf(item: Item): DeliveryDoc {
  if (!item.doc) throw new Error(`delivery ${item.id} has no record to add an attempt to`);
  return item.doc;
}

// Every write of the lead owner to its leads' delivery records and blocks (the retry turns' two
// above included), and the fences they pass: its assignment's (in memory, the lease and the
// hand-over) and the store's (an attempt's record, a lead's block: delivery-store.ts,
// block-store.ts), which refuse what an owner that lost its partitions without knowing still writes.
export class LeadWrites {
  constructor(
    private readonly deps: RecordDeps & {
      blocks: BlockStore;
      batcher: RecordBatcher;
      schedule: Pick<RetrySchedule, 'maxAttempts'>;
      clock: Clock;
    },
  ) {}

  // A delivery's record as its lead's turn decided: false where a first record
  // is refused (fenced: the turn stops there).
  async write(item: Item, write: RecordWrite): Promise<boolean> {
    const { store, batcher } = this.deps;
    if ('insert' in write) {
      const first = write.insert;
      const doc = this.firstRecord(item, first);
      if (!('result' in first)) return batcher.add(doc, this.fence(item, 'batched record'));
      if (!recordedLate(first)) return batcher.add(doc, this.fence(item, 'record'));
      // A delivery whose lease ran out while its record waited for the batch goes late, alone.
      if (await batcher.add(doc, () => item.assignment.work.fenced)) return true;
      await this.recordLate(item, first);
      return false;
    }
    if ('attempt' in write) await this.recordAttempt(item, write.attempt);
    else if ('hold' in write) await holdRecord(this.deps, recordOf(item), write.hold);
    else await untilDone(() => store.awaitRetry(recordOf(item), write.awaitRetry), this.retrying('overflow'));
    return true;
  }

  // A manager's retry of a dead delivery or a replay's: its fresh round (delivery-store.ts).
  requeue(id: string, from: readonly DeliveryState[], by: string, at: Date): Promise<DeliveryDoc | null> {
    return untilDone(
      () => this.deps.store.requeue(id, from, this.deps.schedule.maxAttempts, by, at),
      this.retrying('requeue'),
    );
  }

  private firstRecord(item: Item, first: FirstRecord): DeliveryDoc {
    return newDeliveryDoc(item.event, this.deps.schedule.maxAttempts, this.deps.clock.now(), first, item.kind);
  }

  async recordAttempt(item: Item, done: Attempted): Promise<void> {
    await recordAttempt(this.deps, recordOf(item), done);
  }

  // An attempt answered with a delivery after its assignment's lease ran out (it was sent while the
  // lease held): its record alone is still written, where the store lets it (a first record by its
  // unique _id, a later one by its version), so that the next owner finds it delivered instead of
  // sending it again. Nothing else of its lead is written. Refused, it was recorded by the next owner,
  // which sent it too: counted as the attempts fenced outright are.
  async recordLate(item: Item, done: LateAttempt): Promise<void> {
    const written = await untilDone(
      () =>
        item.doc === null
          ? this.deps.store.insertFirst(this.firstRecord(item, done))
          : this.deps.store.recordAttempt(item.doc, done.at, done.result, done.decision),
      this.retrying('late record'),
    );
    if (written) this.deps.logger.info({ delivery_id: item.id }, 'delivered after the lease ran out: recorded');
    else {
      this.deps.logger.warn({ delivery_id: item.id }, 'delivered after the lease ran out: recorded by the next owner');
      this.deps.metrics.attemptsUnrecorded.inc();
    }
  }

  // An item of an assignment handed over past its deadline writes nothing more: the next owner may
  // already be sending it again from the committed offsets. `what` names the write; an attempt's
  // outcome refused (OUTCOME_WRITES: checked once per attempt, in this order) is one the next owner
  // repeats, and is counted.
  fenced(item: Item, what: string): boolean {
    if (!item.assignment.work.fenced) return false;
    this.deps.logger.warn({ delivery_id: item.id, what }, 'write of a handed-over assignment refused');
    if (OUTCOME_WRITES.has(what)) this.deps.metrics.attemptsUnrecorded.inc();
    return true;
  }

  // The check a batched write of the item makes as it goes (the batcher waits a few milliseconds).
  fence(item: Item, what: string): () => boolean {
    return () => this.fenced(item, what);
  }

  saveBlock(a: OwnedPartitions, key: string, partition: number, block: BlockState | null): void {
    const cut = key.indexOf(':');
    const ref = { endpoint: key.slice(0, cut), leadId: key.slice(cut + 1) };
    this.inTurn(a, key, async () => {
      const epoch = a.epochOf(partition);
      const fenced = () => a.work.fenced; // handed over meanwhile: not written, and no later owner's doing
      const saved = await untilDone(
        () => this.deps.blocks.save(ref, partition, block, epoch, fenced),
        this.retrying('save block'),
      );
      if (!saved && !fenced())
        this.deps.logger.warn({ key, partition, epoch }, 'block write refused: a later owner holds the partition');
    });
  }

  // A write of the lead's line, in its turn (OwnedPartitions.inTurn); a failure is logged.
  inTurn(a: OwnedPartitions, key: string, write: () => Promise<unknown>): void {
    a.inTurn(key, write, (err: unknown) =>
      this.deps.logger.error({ key, err: (err as Error).message }, "could not write a lead's block or record"),
    );
  }

  read(id: string): Promise<DeliveryDoc | null> {
    return untilDone(() => this.deps.store.get(id), this.retrying('read record'));
  }

  readMany(ids: readonly string[]): Promise<(DeliveryDoc | null)[]> {
    return untilDone(() => this.deps.store.getMany(ids), this.retrying('read records'));
  }

  retrying(what: string) {
    return retrying(this.deps.logger, what);
  }
}

const retrying = (logger: Logger, what: string) => (err: unknown, attempt: number) =>
  logger.warn({ what, attempt, err: (err as Error).message }, 'database call failed; trying again');

interface NewRecord {
  doc: DeliveryDoc;
  fenced: () => boolean;
}

// New delivery records written in one insertMany with the others of a few milliseconds
// (write-batch.ts): the happy path costs far less than one database command per callback.
export class RecordBatcher {
  private readonly batch: WriteBatch<NewRecord, boolean>;

  constructor(
    private readonly store: DeliveryStore,
    private readonly logger: Logger,
    private readonly metrics: Pick<DispatcherMetrics, 'attemptsUnrecorded'>,
  ) {
    this.batch = new WriteBatch((records) => this.write(records));
  }

  // Resolves true once the record is stored (or known to exist), false when `fenced` says, as the
  // write is about to go, that its assignment was handed over or its lease ran out (a process frozen
  // between the two): it is not written. Never rejects: a passing failure is tried again; a record
  // the store refuses for good is logged and given up.
  add(doc: DeliveryDoc, fenced: () => boolean): Promise<boolean> {
    return this.batch.add({ doc, fenced });
  }

  // Waits for everything added so far to be written.
  drain(): Promise<void> {
    return this.batch.drain();
  }

  private async write(all: NewRecord[]): Promise<boolean[]> {
    const written = all.map((r) => !r.fenced());
    const docs = all.filter((_, i) => written[i]).map((r) => r.doc);
    if (docs.length === 0) return written;
    try {
      const existed = await untilDone(
        () => this.store.insertNew(docs),
        (err, attempt) =>
          this.logger.warn(
            { records: docs.length, attempt, err: (err as Error).message },
            'could not write delivery records; trying again',
          ),
      );
      for (const doc of docs) if (existed.has(doc._id) && doc.attempts.length > 0) this.repeated(doc._id);
    } catch (err) {
      this.logger.error(
        { ids: docs.map((d) => d._id), err: (err as Error).message },
        'the store refused delivery records',
      );
    }
    return written;
  }

  // Another owner recorded this delivery first (an owner that lost its partitions without knowing,
  // answered late): both sent it, and this attempt's outcome is not recorded.
  private repeated(id: string): void {
    this.logger.warn({ delivery_id: id }, 'another owner recorded this delivery first: this attempt is not recorded');
    this.metrics.attemptsUnrecorded.inc();
  }
}

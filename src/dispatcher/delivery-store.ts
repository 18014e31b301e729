import type { Collection } from 'mongodb';
import { deliveryId } from '../shared/ids';
import { kindField, type DeliveryKind } from '../shared/delivery-kind';
import { findByIds, insertAllNew } from '../shared/mongo/bulk';
import type {
  DeliveryAttempt,
  DeliveryDoc,
  DeliveryState,
  EndedDelivery,
  HeldDelivery,
  WaitingDelivery,
} from '../shared/mongo/delivery-doc';
import type { LeadEvent } from '../shared/schemas';
import {
  deliveryEntries,
  deliveryListPrefixes,
  stateEntries,
  type ListedDelivery,
} from '../shared/store/delivery-list';
import type { ListIndex } from '../shared/store/list-index';
import type { RecordedAttempt, DeliveryDecision } from './retry-policy';
import { systemClock, type Clock } from '../shared/clock';
import { RecordSignals } from './record-signals';
import { WriteBatch } from '../shared/mongo/write-batch';

// The delivery records: one per (lead event, partner, kind), the source of truth for what was sent, and
// their list (delivery_list, the manager's queue and a replay's range). The only code that writes
// either. No locks: a record is created once (its deterministic _id fences replays), and after that
// only the holder of its retry task, its held turn or a manager's retry of a dead one changes it,
// by _id. List entries go in before the record they list and out after it has left them.
export class DeliveryStore {
  // Heard by whoever waits for a record this process writes (its first record, an attempt's).
  readonly signals = new RecordSignals();
  private readonly reads = new WriteBatch<string, DeliveryDoc | null>((ids) => this.getMany(ids));

  constructor(
    private readonly deliveries: Collection<DeliveryDoc>,
    private readonly list: ListIndex,
    private readonly clock: Clock = systemClock,
  ) {}

  // New records in one command; records that exist already (a replayed event, another owner's) are
  // left as they are: their ids are returned.
  async insertNew(docs: readonly DeliveryDoc[]): Promise<Set<string>> {
    if (docs.length === 0) return new Set();
    // An entry put for a record that existed is stale: readers drop it.
    await this.list.put(docs.flatMap(deliveryEntries));
    const existed = await insertAllNew(this.deliveries, docs);
    this.signals.written(docs.map((d) => d._id));
    return existed;
  }

  // One new record unless the delivery has one: false where another writer's came first.
  async insertFirst(doc: DeliveryDoc): Promise<boolean> {
    return (await this.insertNew([doc])).size === 0;
  }

  // Which of these ids have a record: read with every other record asked for within a few
  // milliseconds (get), so other partitions' batches and retry turns share the command.
  async existing(ids: readonly string[]): Promise<Set<string>> {
    const docs = await Promise.all(ids.map((id) => this.get(id)));
    return new Set(ids.filter((_, i) => docs[i] !== null));
  }

  // The records of these ids, in their order (null: none), a chunk of ids per command.
  async getMany(ids: readonly string[]): Promise<(DeliveryDoc | null)[]> {
    const found = await findByIds(this.deliveries, ids);
    return ids.map((id) => found.get(id) ?? null);
  }

  // Read with the others asked for within a few milliseconds (write-batch.ts): retry tasks and held
  // turns that each need their record cost a command per batch, not one each.
  get(id: string): Promise<DeliveryDoc | null> {
    return this.reads.add(id);
  }

  // One more attempt of a record that exists (a retry, a held one's turn, a manual retry's round):
  // attempts are made only on queued records, so an attempt that ends the round moves the record's
  // entries out of `queued`. The store fences it: it is written only while the record is still as
  // the attempt found it (queued, that many attempts made). An instance that lost its partitions
  // without knowing (frozen, or cut off from Kafka) may record late an attempt that the new owner
  // made and recorded again meanwhile: false, nothing written, and its retry task is stale.
  async recordAttempt(
    record: ListedDelivery & Unchanged,
    attemptAt: Date,
    result: RecordedAttempt,
    decision: DeliveryDecision,
  ): Promise<boolean> {
    const moved = decision.state !== 'queued';
    if (moved) await this.list.put(stateEntries(record, decision.state));
    const { matchedCount } = await this.deliveries.updateOne(unchanged(record), {
      $set: { ...stateAfter(result, decision), updated_at: this.clock.now() },
      $push: { attempts: attemptOf(attemptAt, result, decision) },
      $unset: { held_by: '' },
    });
    if (matchedCount === 0) return false; // an entry it put is stale: readers drop it
    this.signals.written([record._id]);
    if (moved) await this.list.remove(stateEntries(record, 'queued'));
    return true;
  }

  // A delivery already recorded (a manual retry's round) that must now wait behind the lead's blocker.
  // Fenced like an attempt's record: only while it is still as its writer read it.
  async markHeld(record: Unchanged, blocker: string): Promise<void> {
    await this.deliveries.updateOne(unchanged(record), {
      $set: { held_by: blocker, next_attempt_at: null, updated_at: this.clock.now() },
    });
  }

  // A delivery recorded already whose attempt now waits on a retry tier (its partner's queue was full).
  async awaitRetry(record: Unchanged, dueAt: Date): Promise<void> {
    await this.deliveries.updateOne(unchanged(record), {
      $set: { next_attempt_at: dueAt, updated_at: this.clock.now() },
      $unset: { held_by: '' },
    });
  }

  // A manager's retry of a dead delivery, or a replay of one that ended: a fresh round of attempts,
  // due now. Null if it is not in one of those states.
  // The record's new `queued` entries are written after it (the state it left is known only then):
  // a crash in between leaves it out of the queued view until its attempt, which lists it again.
  async requeue(
    id: string,
    from: readonly DeliveryState[],
    maxAttempts: number,
    by: string,
    at: Date,
  ): Promise<DeliveryDoc | null> {
    const doc = await this.deliveries.findOneAndUpdate(
      { _id: id, state: { $in: [...from] } },
      {
        $set: { state: 'queued', attempts_made: 0, attempts_left: maxAttempts, next_attempt_at: at, updated_at: at },
        $push: { manual_retries: { at, by } },
      },
      { returnDocument: 'after' },
    );
    if (doc)
      await this.list.put(
        stateEntries(doc, 'queued'),
        from.flatMap((state) => stateEntries(doc, state)),
      );
    return doc;
  }

  async *deadIds(partnerId: string): AsyncIterable<string> {
    for await (const entry of this.list.all({
      prefixes: deliveryListPrefixes({ state: 'dead', partnerId }),
      order: 'asc',
    }))
      yield entry.ref;
  }

  // A partner's deliveries created in [from, to), oldest first (each lead's in event order), after
  // `after` (a replay job's cursor): one _id range of the list per event name.
  inRange(
    range: DeliveryRange,
    after: string | null,
  ): AsyncIterable<{ ref: string; suffix: string; lead_id?: unknown }> {
    // Pages small enough that the first callback goes at once (a replay sends REPLAY_RATE_PER_S).
    return this.list.all({ ...rangeQuery(range), after }, 50);
  }

  async countInRange(range: DeliveryRange): Promise<number> {
    let n = 0;
    for await (const _ of this.list.all(rangeQuery(range), 1000)) n++;
    return n;
  }
}

// What a writer read of a record: a write is made only while the record is still queued with as
// many attempts made (a later owner's attempt, or the end of the round, moved it on).
type Unchanged = Pick<DeliveryDoc, '_id' | 'attempts_made'>;

function unchanged(record: Unchanged) {
  return { _id: record._id, state: 'queued' as const, attempts_made: record.attempts_made };
}

export interface DeliveryRange {
  partnerId: string;
  from: Date;
  to: Date;
  events: readonly string[]; // empty: every event
}

function rangeQuery(r: DeliveryRange) {
  const prefixes =
    r.events.length > 0
      ? r.events.flatMap((event) => deliveryListPrefixes({ partnerId: r.partnerId, event }))
      : deliveryListPrefixes({ partnerId: r.partnerId });
  return { prefixes, from: r.from, to: r.to, order: 'asc' as const };
}

// The record of a delivery after its first attempt; or, with no attempt yet, held behind `heldBy`
// or waiting on a retry tier until `dueAt`.
export function newDeliveryDoc(
  event: LeadEvent,
  maxAttempts: number,
  now: Date,
  first: { heldBy: string },
  kind?: DeliveryKind,
): HeldDelivery;
export function newDeliveryDoc(
  event: LeadEvent,
  maxAttempts: number,
  now: Date,
  first: { dueAt: Date },
  kind?: DeliveryKind,
): WaitingDelivery;
export function newDeliveryDoc(
  event: LeadEvent,
  maxAttempts: number,
  now: Date,
  first: FirstRecord,
  kind?: DeliveryKind,
): DeliveryDoc;
export function newDeliveryDoc(
  event: LeadEvent,
  maxAttempts: number,
  now: Date,
  first: FirstRecord,
  kind: DeliveryKind = 'callback',
): DeliveryDoc {
  const base = {
    _id: deliveryId(event.event_id, event.partner_id, kind),
    ...kindField(kind),
    event_id: event.event_id,
    event_name: event.event,
    partner_id: event.partner_id,
    lead_id: event.lead_id,
    event,
    attempts_made: 0,
    attempts_left: maxAttempts,
    last_http_status: null,
    last_response_body: null,
    last_error: null,
    attempts: [],
    manual_retries: [],
    created_at: now,
    updated_at: now,
  };
  if ('heldBy' in first) return { ...base, state: 'queued', next_attempt_at: null, held_by: first.heldBy };
  if ('dueAt' in first) return { ...base, state: 'queued', next_attempt_at: first.dueAt };
  return {
    ...base,
    ...stateAfter(first.result, first.decision),
    attempts: [attemptOf(first.at, first.result, first.decision)],
  };
}

// A delivery's first record: after its first attempt, held, or put off to a retry tier.
export type FirstRecord =
  { at: Date; result: RecordedAttempt; decision: DeliveryDecision } | { heldBy: string } | { dueAt: Date };

type AttemptFields =
  | 'state'
  | 'attempts_made'
  | 'attempts_left'
  | 'next_attempt_at'
  | 'last_http_status'
  | 'last_response_body'
  | 'last_error';

// What an attempt leaves in its record: queued for the next one on a retry tier, or ended.
function stateAfter(
  result: RecordedAttempt,
  decision: DeliveryDecision,
): Pick<WaitingDelivery, AttemptFields> | Pick<EndedDelivery, AttemptFields> {
  const counts = { attempts_made: decision.attemptsMade, attempts_left: decision.attemptsLeft };
  const last = {
    last_http_status: result.httpStatus,
    last_response_body: result.responseBody,
    last_error: result.error,
  };
  return decision.state === 'queued'
    ? { state: decision.state, ...counts, next_attempt_at: new Date(decision.nextAttemptAt), ...last }
    : { state: decision.state, ...counts, next_attempt_at: null, ...last };
}
function attemptOf(at: Date, result: RecordedAttempt, decision: DeliveryDecision): DeliveryAttempt {
  return {
    attempt: decision.attemptsMade,
    at,
    http_status: result.httpStatus,
    error: result.error,
    duration_ms: Math.round(result.durationMs),
    response_body: result.responseBody,
    ...(result.url !== undefined && { url: result.url }),
  };
}

import type { Collection } from 'mongodb';
import { deliveryId } from '../shared/ids';
import { isDuplicateKey } from '../shared/mongo/client';
import type { DocumentLocks } from '../shared/redis/document-locks';
import type { DeliveryAttempt, DeliveryDoc, DeliveryState } from '../shared/mongo/documents';
import type { LeadEvent } from '../shared/schemas';
import type { AttemptResult } from './attempt-result';
import type { DeliveryDecision } from './delivery-outcome';

const NO_LEASE = new Date(0);
// Room for MongoDB round trips on top of the HTTP timeout before a lease may be taken over.
const LEASE_MARGIN_MS = 5000;

// A lease long enough for one whole attempt, starting now.
export function leaseEnd(now: Date, attemptTimeoutMs: number): Date {
  return new Date(now.getTime() + attemptTimeoutMs + LEASE_MARGIN_MS);
}

export interface Lease {
  doc: DeliveryDoc;
  until: Date;
}

// The delivery records: one per (lead event, partner), the source of truth for what was sent.
// Every change touches one document with a filter that states what it expects (no transactions),
// under the document's lock: FerretDB lets two such compare-and-set updates both succeed.
export class DeliveryStore {
  constructor(private readonly deliveries: Collection<DeliveryDoc>, private readonly locks: DocumentLocks) {}

  private locked<T>(id: string, work: () => Promise<T>): Promise<T> {
    return this.locks.withLock(`delivery:${id}`, work);
  }

  // Creates the record already leased by its creator, ready for its first attempt: a lease taken
  // with no extra round trip. Null when the record already exists (the same event seen again).
  async create(event: LeadEvent, maxAttempts: number, now: Date, leaseUntil: Date): Promise<{ id: string; lease: Lease | null }> {
    const id = deliveryId(event.event_id, event.partner_id);
    const doc: DeliveryDoc = {
      _id: id,
      event_id: event.event_id,
      event_name: event.event,
      partner_id: event.partner_id,
      lead_id: event.lead_id,
      event,
      state: 'queued',
      attempts_made: 0,
      attempts_left: maxAttempts,
      next_attempt_at: now,
      last_http_status: null,
      last_response_body: null,
      last_error: null,
      attempts: [],
      manual_retries: [],
      lease_until: leaseUntil,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.deliveries.insertOne(doc);
      return { id, lease: { doc, until: leaseUntil } };
    } catch (err) {
      if (isDuplicateKey(err)) return { id, lease: null };
      throw err;
    }
  }

  // Only the lease holder may attempt a delivery, and only once it is due: this is what keeps two
  // workers (or a retry message and the sweeper) from sending the same delivery at the same time.
  // With `held`, renews a lease this worker still holds instead.
  async takeLease(id: string, now: Date, leaseUntil: Date, held?: Date): Promise<DeliveryDoc | null> {
    return this.locked(id, () => this.deliveries.findOneAndUpdate(
      held
        ? { _id: id, state: 'queued', lease_until: held }
        : { _id: id, state: 'queued', lease_until: { $lt: now }, next_attempt_at: { $lte: now } },
      { $set: { lease_until: leaseUntil, updated_at: now } },
      { returnDocument: 'after' },
    ));
  }

  // Records the attempt and the new state, and releases the lease. False if the lease was lost.
  async recordAttempt(
    id: string, leaseUntil: Date, attemptAt: Date, result: AttemptResult, decision: DeliveryDecision,
  ): Promise<boolean> {
    const attempt: DeliveryAttempt = {
      attempt: decision.attemptsMade,
      at: attemptAt,
      http_status: result.httpStatus,
      error: result.error,
      duration_ms: Math.round(result.durationMs),
    };
    const res = await this.locked(id, () => this.deliveries.updateOne(
      { _id: id, lease_until: leaseUntil },
      {
        $set: {
          state: decision.state,
          attempts_made: decision.attemptsMade,
          attempts_left: decision.attemptsLeft,
          next_attempt_at: decision.state === 'queued' ? new Date(decision.nextAttemptAt) : null,
          last_http_status: result.httpStatus,
          last_response_body: result.responseBody,
          last_error: result.error,
          lease_until: NO_LEASE,
          updated_at: new Date(),
        },
        $push: { attempts: attempt },
      },
    ));
    return res.modifiedCount === 1;
  }

  // A manager's retry of a dead delivery: a fresh round of attempts, due now.
  async requeueDead(id: string, maxAttempts: number, by: string, now: Date): Promise<DeliveryDoc | null> {
    return this.locked(id, () => this.deliveries.findOneAndUpdate(
      { _id: id, state: 'dead' },
      {
        $set: { state: 'queued', attempts_made: 0, attempts_left: maxAttempts, next_attempt_at: now, lease_until: NO_LEASE, updated_at: now },
        $push: { manual_retries: { at: now, by } },
      },
      { returnDocument: 'after' },
    ));
  }

  async exists(id: string): Promise<boolean> {
    return (await this.deliveries.countDocuments({ _id: id }, { limit: 1 })) > 0;
  }

  async deadIds(partnerId: string): Promise<string[]> {
    const docs = await this.deliveries.find({ partner_id: partnerId, state: 'dead' }, { projection: { _id: 1 } }).toArray();
    return docs.map((d) => d._id);
  }

  // Queued deliveries overdue by more than `grace` and not leased: nothing is driving them.
  async overdue(now: Date, graceMs: number, limit: number): Promise<Pick<DeliveryDoc, '_id' | 'partner_id'>[]> {
    return this.deliveries
      .find(
        { state: 'queued', next_attempt_at: { $lte: new Date(now.getTime() - graceMs) }, lease_until: { $lt: now } },
        { projection: { _id: 1, partner_id: 1 }, sort: { next_attempt_at: 1 }, limit },
      )
      .toArray();
  }

  async countByState(): Promise<Record<DeliveryState, number>> {
    const counts: Record<DeliveryState, number> = { queued: 0, delivered: 0, dead: 0 };
    const rows = await this.deliveries.aggregate<{ _id: DeliveryState; n: number }>([
      { $group: { _id: '$state', n: { $sum: 1 } } },
    ]).toArray();
    for (const row of rows) if (row._id in counts) counts[row._id] = row.n;
    return counts;
  }
}

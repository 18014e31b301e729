import type { Collection } from 'mongodb';
import { isDuplicateKey } from '../shared/mongo/client';
import type { DedupClaimDoc, LeadDoc } from '../shared/mongo/documents';
import type { DocumentLocks } from '../shared/redis/document-locks';

export type ClaimOutcome = { kind: 'claimed'; leadId: string } | { kind: 'duplicate'; leadId: string };

export interface ClaimRequest {
  keys: string[]; // e.g. "g:phone:<hash>", "g:email:<hash>"
  owner: string; // "<partner id>:<idempotency key>" of the command
  windowMs: number;
  now: Date;
  allocateLeadId: () => Promise<string>;
}

const IN_FLIGHT_WAIT_MS = 2000;
const POLL_MS = 50;

// Race-free deduplication on a unique index (FerretDB's findAndModify upserts are not atomic;
// unique indexes are). Each phone or email hash is claimed by inserting a document with that _id:
// of any number of concurrent claimants exactly one insert succeeds. A claim older than the window
// is taken over with a compare-and-set on its previous owner, under the claim's lock (FerretDB's
// conditional updates are not atomic on their own). A claim whose lead does not exist yet
// belongs to a command still being decided (or to one that crashed): wait briefly, then treat a
// claim still without a lead as orphaned and take it over.
export class DedupClaims {
  constructor(
    private readonly claims: Collection<DedupClaimDoc>,
    private readonly leads: Collection<LeadDoc>,
    private readonly locks: DocumentLocks,
  ) {}

  async claim(req: ClaimRequest): Promise<ClaimOutcome> {
    // A redelivered command finds the claims it made before it crashed, and keeps their lead id.
    const mine = await this.claims.findOne({ _id: { $in: req.keys }, owner: req.owner });
    const leadId = mine?.lead_id ?? (await req.allocateLeadId());
    const taken: string[] = [];
    for (const key of req.keys) {
      const outcome = await this.claimOne(key, leadId, req);
      if (outcome.kind === 'duplicate') {
        await this.release(taken, req.owner);
        return outcome;
      }
      taken.push(key);
    }
    return { kind: 'claimed', leadId };
  }

  async release(keys: readonly string[], owner: string): Promise<void> {
    for (const key of keys) await this.locks.withLock(`claim:${key}`, () => this.claims.deleteOne({ _id: key, owner }));
  }

  private async claimOne(key: string, leadId: string, req: ClaimRequest): Promise<ClaimOutcome> {
    const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
    for (;;) {
      try {
        await this.claims.insertOne({ _id: key, lead_id: leadId, owner: req.owner, claimed_at: req.now });
        return { kind: 'claimed', leadId };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const existing = await this.claims.findOne({ _id: key });
      if (!existing) continue; // released meanwhile: try again
      if (existing.owner === req.owner) return { kind: 'claimed', leadId };
      const expired = existing.claimed_at.getTime() < req.now.getTime() - req.windowMs;
      const leadExists = expired || (await this.leads.countDocuments({ _id: existing.lead_id }, { limit: 1 })) > 0;
      if (leadExists && !expired) return { kind: 'duplicate', leadId: existing.lead_id };
      if (!expired && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        continue;
      }
      const stolen = await this.locks.withLock(`claim:${key}`, () => this.claims.updateOne(
        { _id: key, owner: existing.owner, claimed_at: existing.claimed_at },
        { $set: { lead_id: leadId, owner: req.owner, claimed_at: req.now } },
      ));
      if (stolen.modifiedCount === 1) return { kind: 'claimed', leadId };
    }
  }
}

import type { Collection, Db } from 'mongodb';
import { findByIds, insertAllNew } from '../shared/mongo/bulk';
import type { DedupClaimDoc, LeadDoc } from '../shared/mongo/documents';

const PERIOD_MS = 30 * 86_400_000;
const PREFIX = 'dedup_claims_p';

const periodOf = (at: Date): number => Math.floor(at.getTime() / PERIOD_MS);

// The one module that writes dedup claims: each phone or email hash is claimed by inserting a
// document with that _id, so of any number of concurrent claimants exactly one insert succeeds (the
// unique _id is atomic on every MongoDB-wire server).
// Claims are inserted in bulk for a whole batch; the conflicting ones are read back in one look-up.
// They live in one collection per 30-day period: new claims go to the current one, older periods are
// read (one look-up each) as far back as the dedup window reaches, and a period wholly past the
// longest window is dropped whole, so claims do not pile up (no TTL index, no scan).
export class DedupClaims {
  constructor(private readonly db: Db) {}

  collectionAt(at: Date): Collection<DedupClaimDoc> {
    return this.db.collection<DedupClaimDoc>(`${PREFIX}${periodOf(at)}`);
  }

  // The newest claim of each id in the periods before the current one that `windowMs` reaches (the
  // periods are read at once).
  async prior(ids: readonly string[], now: Date, windowMs: number): Promise<Map<string, DedupClaimDoc>> {
    const unique = [...new Set(ids)];
    const periods: number[] = [];
    for (let p = periodOf(now) - 1; p >= periodOf(new Date(now.getTime() - windowMs)); p--) periods.push(p);
    if (unique.length === 0) return new Map();
    const found = new Map<string, DedupClaimDoc>();
    const reads = await Promise.all(
      periods.map((p) => findByIds(this.db.collection<DedupClaimDoc>(`${PREFIX}${p}`), unique)),
    );
    for (const period of reads) for (const [id, doc] of period) if (!found.has(id)) found.set(id, doc);
    return found;
  }

  insertNew(docs: readonly DedupClaimDoc[], now: Date): Promise<Set<string>> {
    return insertAllNew(this.collectionAt(now), docs);
  }

  byIds(ids: Iterable<string>, now: Date): Promise<Map<string, DedupClaimDoc>> {
    return findByIds(this.collectionAt(now), ids);
  }

  // A claim older than the dedup window no longer matches: it is handed to the new lead, on the
  // condition that it is still the one read (a compare-and-set: of two commands taking one expired
  // email claim from two partitions at once, one wins). Phone claims have one writer (commands are
  // keyed by a bucket of the phone hash).
  async takeOver(expired: DedupClaimDoc, next: DedupClaimDoc, now: Date): Promise<boolean> {
    const res = await this.collectionAt(now).updateOne(
      { _id: expired._id, owner: expired.owner, claimed_at: expired.claimed_at },
      { $set: { lead_id: next.lead_id, owner: next.owner, claimed_at: next.claimed_at } },
    );
    return res.modifiedCount === 1;
  }

  // Gives back claims a command made but did not use (it lost a later claim): only its own.
  async release(ids: readonly string[], owner: string, now: Date): Promise<void> {
    if (ids.length > 0) await this.collectionAt(now).deleteMany({ _id: { $in: [...ids] }, owner });
  }

  // An erased lead no longer matches: its claims (either scope, phone and email) are deleted by _id
  // from the period it was created in, which is where its intake wrote or took them over; a claim
  // of the same hash that now names another lead is left alone.
  async forget(
    leads: readonly Pick<LeadDoc, '_id' | 'partner_id' | 'phone_hash' | 'email_hash' | 'created_at'>[],
  ): Promise<void> {
    const byPeriod = new Map<number, { ids: string[]; leadIds: string[] }>();
    for (const lead of leads) {
      const hashes = [
        lead.phone_hash && `phone:${lead.phone_hash}`,
        lead.email_hash && `email:${lead.email_hash}`,
      ].filter((h): h is string => !!h);
      const group = byPeriod.get(periodOf(lead.created_at)) ?? { ids: [], leadIds: [] };
      group.ids.push(...['g', `p:${lead.partner_id}`].flatMap((scope) => hashes.map((h) => `${scope}:${h}`)));
      group.leadIds.push(lead._id);
      byPeriod.set(periodOf(lead.created_at), group);
    }
    for (const [period, { ids, leadIds }] of byPeriod) {
      if (ids.length > 0)
        await this.db
          .collection<DedupClaimDoc>(`${PREFIX}${period}`)
          .deleteMany({ _id: { $in: ids }, lead_id: { $in: leadIds } });
    }
  }

  // Drops the periods that ended before the longest dedup window began; returns their names.
  async dropExpired(now: Date, longestWindowMs: number): Promise<string[]> {
    const oldest = periodOf(new Date(now.getTime() - longestWindowMs));
    const names = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    const expired = names.filter((n) => n.startsWith(PREFIX) && Number(n.slice(PREFIX.length)) < oldest);
    for (const name of expired) await this.db.dropCollection(name).catch(() => undefined);
    return expired;
  }
}

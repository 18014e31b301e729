import type { Collection } from 'mongodb';
import { findByIds, insertAllNew } from '../shared/mongo/bulk';
import type { DedupClaimDoc } from '../shared/mongo/documents';

// The one module that writes `dedup_claims`: each phone or email hash is claimed by inserting a
// document with that _id, so of any number of concurrent claimants exactly one insert succeeds (the
// unique _id is atomic on every MongoDB-wire server; FerretDB's conditional updates are not).
// Claims are inserted in bulk for a whole batch; the conflicting ones are read back in one look-up.
export class DedupClaims {
  constructor(private readonly claims: Collection<DedupClaimDoc>) {}

  insertNew(docs: readonly DedupClaimDoc[]): Promise<Set<string>> {
    return insertAllNew(this.claims, docs);
  }

  byIds(ids: Iterable<string>): Promise<Map<string, DedupClaimDoc>> {
    return findByIds(this.claims, ids);
  }

  // A claim older than the dedup window no longer matches: it is handed to the new lead, on the
  // condition that it is still the one read. Phone claims have one writer (commands are keyed by
  // phone hash); two commands sharing an expired email claim from two partitions in the same
  // millisecond is the only race left on a server whose conditional updates are not atomic.
  async takeOver(expired: DedupClaimDoc, next: DedupClaimDoc): Promise<boolean> {
    const res = await this.claims.updateOne(
      { _id: expired._id, owner: expired.owner, claimed_at: expired.claimed_at },
      { $set: { lead_id: next.lead_id, owner: next.owner, claimed_at: next.claimed_at } },
    );
    return res.modifiedCount === 1;
  }

  // Gives back claims a command made but did not use (it lost a later claim): only its own.
  async release(ids: readonly string[], owner: string): Promise<void> {
    if (ids.length > 0) await this.claims.deleteMany({ _id: { $in: [...ids] }, owner });
  }
}

import type { Collection } from 'mongodb';
import { findByIds, insertAllNew } from '../mongo/bulk';
import type { LeadRefDoc } from '../mongo/documents';

export const leadRefId = (partnerId: string, externalId: string): string => `${partnerId}:${externalId}`;

// The one module that writes `lead_refs`: (partner, external_id) -> lead, inserted in bulk with the
// leads. Its unique _id makes external ids unique per partner; the status lookup reads it by _id.
export class LeadRefStore {
  constructor(private readonly refs: Collection<LeadRefDoc>) {}

  insertNew(docs: readonly LeadRefDoc[]): Promise<Set<string>> {
    return insertAllNew(this.refs, docs);
  }

  byIds(ids: Iterable<string>): Promise<Map<string, LeadRefDoc>> {
    return findByIds(this.refs, ids);
  }

  async leadIdOf(partnerId: string, externalId: string, signal?: AbortSignal): Promise<string | null> {
    return (await this.refs.findOne({ _id: leadRefId(partnerId, externalId) }, { signal }))?.lead_id ?? null;
  }

  // Gives back refs a command made but did not use (it lost a later claim).
  async release(ids: readonly string[], owner: string): Promise<void> {
    if (ids.length > 0) await this.refs.deleteMany({ _id: { $in: [...ids] }, owner });
  }
}

import type { Collection } from 'mongodb';
import { findByIds, insertAllNew } from '../shared/mongo/bulk';
import type { ParkedMessageDoc } from '../shared/mongo/documents';

// The one module that writes `parked_messages`: CRM messages waiting for something else to happen
// first. Small by construction (a message stays at most CRM_PARK_MAX_MS), so it may be read whole.
export class ParkedMessages {
  constructor(
    private readonly parked: Collection<ParkedMessageDoc>,
    private readonly added: () => void = () => undefined, // heard once messages were parked
  ) {}

  async park(docs: readonly ParkedMessageDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await insertAllNew(this.parked, docs);
    this.added();
  }

  byIds(ids: Iterable<string>): Promise<Map<string, ParkedMessageDoc>> {
    return findByIds(this.parked, ids);
  }

  // A page in _id order after `after` (null: from the start).
  list(after: string | null, limit: number): Promise<Pick<ParkedMessageDoc, '_id' | 'lead_id'>[]> {
    return this.parked
      .find(after === null ? {} : { _id: { $gt: after } }, { projection: { _id: 1, lead_id: 1 } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.parked.deleteMany({ _id: { $in: [...ids] } });
  }
}

import type { Collection } from 'mongodb';
import { insertAllNew } from '../shared/mongo/bulk';
import type { LeadDoc, WaitingLeadDoc } from '../shared/mongo/documents';

// The one module that writes `waiting_leads`: leads accepted while no agent could take them. It
// holds only those, so reading it whole when agents change costs what is waiting, not what is stored.
export class WaitingLeads {
  constructor(
    private readonly waiting: Collection<WaitingLeadDoc>,
    private readonly added: () => void = () => undefined, // heard once leads were set waiting
  ) {}

  async add(leads: readonly LeadDoc[]): Promise<void> {
    if (leads.length === 0) return;
    await insertAllNew(
      this.waiting,
      leads.map((l) => {
        const doc: WaitingLeadDoc = { _id: l._id, partner_id: l.partner_id, since: l.created_at };
        if (l.country_code !== undefined) doc.country_code = l.country_code;
        if (l.language !== undefined) doc.language = l.language;
        return doc;
      }),
    );
    this.added();
  }

  // A page in _id order after `after` (null: from the start).
  list(after: string | null, limit: number): Promise<WaitingLeadDoc[]> {
    return this.waiting
      .find(after === null ? {} : { _id: { $gt: after } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.waiting.deleteMany({ _id: { $in: [...ids] } });
  }
}

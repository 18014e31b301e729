import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Db } from 'mongodb';
import { findByIds } from '../../shared/mongo/bulk';
import type { LeadDoc } from '../../shared/mongo/documents';
import type { StoredLead } from './event-projection';
import type { ReportLeadDoc } from './lead-tally';

const DUPLICATE_KEY = 11000;
// What the reports read of a lead: never phone, email, names, IP or personal_enc.
export const REPORT_LEAD_PROJECTION = { partner_id: 1, country_code: 1, source: 1, created_at: 1, test: 1, history: 1 } as const;

// report_leads (the per-lead fence of the reports) and the reports' reads of `leads`, by `_id` only.
export class ReportLeadStore {
  readonly states: Collection<ReportLeadDoc>;

  constructor(db: Db, private readonly leads: Collection<LeadDoc>) {
    this.states = db.collection<ReportLeadDoc>('report_leads');
  }

  byIds(ids: Iterable<string>): Promise<Map<string, ReportLeadDoc>> {
    return findByIds(this.states, ids);
  }

  async storedLeads(ids: Iterable<string>): Promise<Map<string, StoredLead>> {
    return (await findByIds(this.leads, ids, { projection: REPORT_LEAD_PROJECTION })) as unknown as Map<string, StoredLead>;
  }

  // Stores each state unless the stored one has counted as far already (a former owner, a replay):
  // `through` only grows. The upsert of a document that exists with a higher `through` collides on
  // its `_id`, which is the answer "already there".
  async save(states: Iterable<ReportLeadDoc>): Promise<void> {
    const ops: AnyBulkWriteOperation<ReportLeadDoc>[] = [...states].map(({ _id, ...rest }) => ({
      updateOne: { filter: { _id, through: { $lt: rest.through } }, update: { $set: rest }, upsert: true },
    }));
    if (ops.length === 0) return;
    try {
      await this.states.bulkWrite(ops, { ordered: false });
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) throw err;
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) throw err;
    }
  }

  // The rebuild's states, whole.
  async replace(states: readonly ReportLeadDoc[]): Promise<void> {
    if (states.length === 0) return;
    await this.states.bulkWrite(states.map((s) => ({ replaceOne: { filter: { _id: s._id }, replacement: s, upsert: true } })), { ordered: false });
  }
}

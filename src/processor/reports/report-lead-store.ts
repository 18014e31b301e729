import type { Collection, Db } from 'mongodb';
import { findByIds, insertAllNew } from '../../shared/mongo/bulk';
import type { LeadDoc } from '../../shared/mongo/documents';
import type { StoredLead } from './event-projection';
import type { ReportLeadDoc } from './lead-tally';

// What the reports read of a lead: never phone, email, names, IP or personal_enc.
export const REPORT_LEAD_PROJECTION = {
  partner_id: 1,
  country_code: 1,
  source: 1,
  created_at: 1,
  test: 1,
  history: 1,
} as const;

// report_leads (the per-lead fence of the reports) and the reports' reads of `leads`, by `_id` only.
export class ReportLeadStore {
  readonly states: Collection<ReportLeadDoc>;

  constructor(
    db: Db,
    private readonly leads: Collection<LeadDoc>,
  ) {
    this.states = db.collection<ReportLeadDoc>('report_leads');
  }

  byIds(ids: Iterable<string>): Promise<Map<string, ReportLeadDoc>> {
    return findByIds(this.states, ids);
  }

  async storedLeads(ids: Iterable<string>): Promise<Map<string, StoredLead>> {
    return (await findByIds(this.leads, ids, { projection: REPORT_LEAD_PROJECTION })) as unknown as Map<
      string,
      StoredLead
    >;
  }

  // Stores each state unless the stored one has counted as far already (a former owner, a replay):
  // `through` only grows. A lead with no state when the chunk read them is inserted, all in one
  // command (the local store runs each update as a transaction of its own, an insert batch as one);
  // one stored meanwhile collides on its `_id` and is updated like those read. A state is never
  // removed, so these updates need no upsert: one that matches nothing met a `through` as high,
  // the answer "already there". (No duplicate-key error is left to expect: on an update command
  // the local store stops at the first error, even unordered: docs/mongodb-ferretdb.md.)
  async save(states: Iterable<ReportLeadDoc>, known: ReadonlyMap<string, ReportLeadDoc>): Promise<void> {
    const fresh: ReportLeadDoc[] = [];
    const moved: ReportLeadDoc[] = [];
    for (const state of states) (known.has(state._id) ? moved : fresh).push(state);
    const collided = await insertAllNew(this.states, fresh);
    moved.push(...fresh.filter((s) => collided.has(s._id)));
    if (moved.length === 0) return;
    await this.states.bulkWrite(
      moved.map(({ _id, ...rest }) => ({
        updateOne: { filter: { _id, through: { $lt: rest.through } }, update: { $set: rest } },
      })),
      { ordered: false },
    );
  }

  // The rebuild's states, whole.
  async replace(states: readonly ReportLeadDoc[]): Promise<void> {
    if (states.length === 0) return;
    await this.states.bulkWrite(
      states.map((s) => ({ replaceOne: { filter: { _id: s._id }, replacement: s, upsert: true } })),
      { ordered: false },
    );
  }
}

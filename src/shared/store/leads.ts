import type { Collection } from 'mongodb';
import { findByIds, insertAllNew } from '../mongo/bulk';
import type { LeadDoc, StatusChange } from '../mongo/documents';
import { queueEntries, queueMoves, type IsTerminal } from './agent-queue';
import { leadListEntries, leadListMoves, type ListMoves } from './lead-list';
import type { ListIndex } from './list-index';

// What one owner decided for one lead in a batch: the entries to append and the fields they set,
// and whether its personal data is erased (its key is destroyed before).
export interface LeadChange {
  lead: LeadDoc; // as the owner last read or wrote it
  entries: StatusChange[];
  set: Partial<Pick<LeadDoc, 'status' | 'is_depositor' | 'client_id' | 'agent_id' | 'callback_at'>>;
  erase?: boolean;
}

export type LeadStatusFields = Pick<
  LeadDoc,
  '_id' | 'partner_id' | 'external_id' | 'status' | 'is_depositor' | 'created_at' | 'updated_at'
>;
const STATUS_PROJECTION = {
  _id: 1,
  partner_id: 1,
  external_id: 1,
  status: 1,
  is_depositor: 1,
  created_at: 1,
  updated_at: 1,
} as const;

// Every personal field a lead holds: ciphertexts and the keyed hashes that would still link it.
export const PERSONAL_FIELDS = ['phone_enc', 'phone_hash', 'email_enc', 'email_hash', 'personal_enc'] as const;

// The one module that writes `leads`. Leads are created in bulk by the intake processor and then
// changed only by the owner of their partition of the lead topics (one writer per lead), one
// update per changed lead per batch. A change's update states the updated_at it expects (a
// compare-and-set), so a second writer (a zombie owner after a rebalance, a CRM message keyed by
// something else than the lead) finds its change refused instead of writing over another. Only a
// store given a writer's lead list writes (the ingress only reads). The lead list's
// entries (lead-list.ts, and its agent's queue: agent-queue.ts) go in before the lead they list and out after
// it has left them.
export interface LeadWriter {
  list: ListIndex;
  isTerminal: IsTerminal; // a terminal lead leaves its agent's queue (agent-queue.ts)
}

export class LeadStore {
  constructor(
    private readonly leads: Collection<LeadDoc>,
    private readonly writer: LeadWriter | null = null,
  ) {}

  async insertNew(docs: readonly LeadDoc[]): Promise<Set<string>> {
    const { list, isTerminal } = this.writing();
    await list.put(docs.flatMap((d) => [...leadListEntries(d), ...queueEntries(d, isTerminal)]));
    return insertAllNew(this.leads, docs);
  }

  private writing(): LeadWriter {
    if (!this.writer) throw new Error('this LeadStore only reads: it was given no writer');
    return this.writer;
  }

  byIds(ids: Iterable<string>): Promise<Map<string, LeadDoc>> {
    return findByIds(this.leads, ids);
  }

  // The few fields the partner's status lookup shows: not the history, and not the personal data
  // (ciphertexts and hashes), which the ingress has no reason to hold.
  statusOf(id: string, signal?: AbortSignal): Promise<LeadStatusFields | null> {
    return this.leads.findOne<LeadStatusFields>({ _id: id }, { projection: STATUS_PROJECTION, signal });
  }

  // Applies every change (concurrently: the store serves point writes by _id one at a time anyway,
  // but round trips overlap). Returns each lead as stored now, or null where the lead had changed
  // since it was read: that change was not made (the list entries it put are stale, as after a
  // crash between the two writes, and readers drop them).
  async apply(changes: readonly LeadChange[], now: Date): Promise<(LeadDoc | null)[]> {
    const { list, isTerminal } = this.writing();
    const moves = changes.map(({ lead, set, erase }): ListMoves => {
      const after = { ...lead, ...set, ...(erase ? { personal_erased_at: now } : {}) };
      const listed = leadListMoves(lead, after);
      const queued = queueMoves(lead, after, isTerminal);
      return { put: [...listed.put, ...queued.put], remove: [...listed.remove, ...queued.remove] };
    });
    await list.put(moves.flatMap((m) => m.put));
    const stored = await Promise.all(
      changes.map(async ({ lead, entries, set, erase }) => {
        const erased = erase ? { personal_erased_at: now } : {};
        // The whole history is set, not pushed: the same change run twice (after a crash) is one.
        const res = await this.leads.updateOne(
          { _id: lead._id, updated_at: lead.updated_at },
          {
            $set: {
              ...set,
              ...erased,
              updated_at: now,
              ...(entries.length > 0 ? { history: [...lead.history, ...entries] } : {}),
            },
            ...(erase ? { $unset: Object.fromEntries(PERSONAL_FIELDS.map((f) => [f, ''])) } : {}),
          },
        );
        if (res.matchedCount === 0) return null;
        const after: LeadDoc = { ...lead, ...set, ...erased, history: [...lead.history, ...entries], updated_at: now };
        if (erase) for (const f of PERSONAL_FIELDS) delete after[f];
        return after;
      }),
    );
    await list.remove(moves.flatMap((m, i) => (stored[i] ? m.remove : [])));
    return stored;
  }
}

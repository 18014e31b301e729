import type { Collection, Db } from 'mongodb';
import { findByIds, insertAllNew } from '../mongo/bulk';
import type { LeadKeyDoc } from '../mongo/documents';
import { dayOf } from './intake-decisions';
import type { IntakeKeyStore } from './intake-keys';

const PREFIX = 'lead_keys_';
const PAGE = 500;

type KeyedLead = { _id: string; created_at: Date };

// The one module that writes leads' data keys (wrapped). Keys live in one collection per UTC day
// of the lead's creation: one lead is erased by deleting its key by _id, and a whole day past the
// retention is erased by dropping its collection at once (no scan, no TTL index).
export class LeadKeyStore {
  // `intakeKeys`: where each key also lies while its intake command is retained (intake-keys.ts).
  constructor(
    private readonly db: Db,
    private readonly intakeKeys: Pick<IntakeKeyStore, 'destroy'>,
  ) {}

  // Keys are inserted before their leads: a lead never exists without its key (a crash in between
  // leaves a key without a lead, dropped with its day).
  async insertNew(docs: readonly LeadKeyDoc[]): Promise<void> {
    for (const [day, group] of groupByDay(docs)) await insertAllNew(this.collection(day), group);
  }

  async byLeads(leads: readonly KeyedLead[], signal?: AbortSignal): Promise<Map<string, LeadKeyDoc>> {
    const found = new Map<string, LeadKeyDoc>();
    for (const [day, group] of groupByDay(leads)) {
      for (const [id, doc] of await findByIds(
        this.collection(day),
        group.map((l) => l._id),
        { signal },
      ))
        found.set(id, doc);
    }
    return found;
  }

  // Crypto-shredding: with the key gone, the lead's ciphertexts can never be opened again, neither
  // in the store nor on Kafka (its intake command's copy of the key goes first).
  async destroy(leads: readonly KeyedLead[]): Promise<void> {
    const refs = [...(await this.byLeads(leads)).values()].flatMap((k) => (k.key_ref === undefined ? [] : [k.key_ref]));
    await this.intakeKeys.destroy(refs);
    for (const [day, group] of groupByDay(leads))
      await this.collection(day).deleteMany({ _id: { $in: group.map((l) => l._id) } });
  }

  // Days holding keys of leads created before `cutoff`, oldest first.
  async daysBefore(cutoff: Date): Promise<string[]> {
    const names = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    return names
      .filter((n) => n.startsWith(PREFIX) && n.slice(PREFIX.length) < dayOf(cutoff))
      .map((n) => n.slice(PREFIX.length))
      .sort();
  }

  // The lead ids of one day, a page at a time (reads that day's keys only, never the leads).
  async leadIds(day: string, after: string | null): Promise<string[]> {
    const filter = after === null ? {} : { _id: { $gt: after } };
    return (
      await this.collection(day)
        .find(filter, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .limit(PAGE)
        .toArray()
    ).map((d) => d._id);
  }

  async dropDay(day: string): Promise<void> {
    await this.db.dropCollection(`${PREFIX}${day}`).catch(() => undefined);
  }

  private collection(day: string): Collection<LeadKeyDoc> {
    return this.db.collection<LeadKeyDoc>(`${PREFIX}${day}`);
  }
}

function groupByDay<T extends KeyedLead>(items: readonly T[]): Map<string, T[]> {
  const byDay = new Map<string, T[]>();
  for (const item of items) byDay.set(dayOf(item.created_at), [...(byDay.get(dayOf(item.created_at)) ?? []), item]);
  return byDay;
}

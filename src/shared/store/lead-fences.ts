import type { Db } from 'mongodb';
import { findByIds, insertAllNew } from '../mongo/bulk';
import type { StatusChange } from '../mongo/documents';

const PERIOD_MS = 30 * 86_400_000;
const PREFIX = 'lead_changes_p';
// Two writers that decided from the same version of a lead (a zombie and the partition's new owner)
// insert their fences within this many periods of each other: a cached lead is kept only while its
// partition stays the owner's (processor/lifecycle/lead-cache.ts). Older periods are dropped whole.
const KEPT_PERIODS = 2;

// A fence whose change never reached its lead this long after it was taken belongs to a writer
// that died between the two: one contender (again by unique _id) may take it over.
const ABANDONED_AFTER_MS = 30_000;

const periodOf = (at: Date): number => Math.floor(at.getTime() / PERIOD_MS);

interface LeadFenceDoc {
  _id: string; // <lead id>:<index of the first history entry the change appends> (its first event id)
  source: string; // the message that made that entry
  at: Date;
}

export interface FencedChange {
  lead: { _id: string; history: readonly unknown[]; updated_at: Date };
  entries: readonly Pick<StatusChange, 'source'>[];
}

// The one-writer guard of leads, on every MongoDB-wire server, in front of the lead's conditional
// update (the updated_at it read, itself a compare-and-set: test/store/atomic-updates.test.ts).
// Before a change appends entries to a lead, its fence is inserted under the id of the first entry
// it appends: of two owners that decided from the same version (a zombie after a rebalance and the
// new owner), one insert wins and the other's change is refused (the lead is read again). A fence
// that names the same message is the same change again (a run after a crash between fence and
// update): it may go on. A fence left by a writer that died before its update is taken over.
// Fences live in one collection per 30-day period of the version they were decided from, dropped
// whole once past (no TTL index, no scan).
export class LeadFences {
  constructor(private readonly db: Db) {}

  // Per change, whether it may write. Changes that append nothing (an erasure) need no fence.
  async claim(changes: readonly FencedChange[], now = new Date()): Promise<boolean[]> {
    const fences = changes.map(({ lead, entries }) =>
      entries.length === 0
        ? null
        : {
            period: periodOf(lead.updated_at),
            doc: {
              _id: `${lead._id}:${lead.history.length}`,
              source: (entries[0] as Pick<StatusChange, 'source'>).source,
              at: now,
            },
          },
    );
    const allowed = fences.map(() => true);
    const byPeriod = new Map<number, number[]>();
    fences.forEach((f, i) => {
      if (f) byPeriod.set(f.period, [...(byPeriod.get(f.period) ?? []), i]);
    });
    for (const [period, indexes] of byPeriod) {
      const collection = this.db.collection<LeadFenceDoc>(`${PREFIX}${period}`);
      const docs = indexes.map((i) => (fences[i] as { doc: LeadFenceDoc }).doc);
      const taken = await insertAllNew(collection, docs);
      if (taken.size === 0) continue;
      const existing = await findByIds(collection, taken);
      const takeovers: { i: number; doc: LeadFenceDoc }[] = [];
      for (const i of indexes) {
        const { doc } = fences[i] as { doc: LeadFenceDoc };
        const ex = existing.get(doc._id);
        if (!taken.has(doc._id) || !ex) continue;
        allowed[i] = ex.source === doc.source;
        if (!allowed[i] && now.getTime() - ex.at.getTime() > ABANDONED_AFTER_MS)
          takeovers.push({ i, doc: { ...doc, _id: `${doc._id}~${ex.at.getTime()}` } });
      }
      if (takeovers.length === 0) continue;
      const lost = await insertAllNew(
        collection,
        takeovers.map((t) => t.doc),
      );
      const winners = lost.size > 0 ? await findByIds(collection, lost) : new Map<string, LeadFenceDoc>();
      for (const { i, doc } of takeovers)
        allowed[i] = !lost.has(doc._id) || winners.get(doc._id)?.source === doc.source;
    }
    return allowed;
  }

  // Drops the periods older than KEPT_PERIODS before now; returns their names.
  async dropExpired(now: Date): Promise<string[]> {
    const oldest = periodOf(now) - KEPT_PERIODS;
    const names = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    const expired = names.filter((n) => n.startsWith(PREFIX) && Number(n.slice(PREFIX.length)) < oldest);
    for (const name of expired) await this.db.dropCollection(name).catch(() => undefined);
    return expired;
  }
}

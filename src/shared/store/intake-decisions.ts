import type { Collection, Db } from 'mongodb';
import { findByIds, insertAllNew } from '../mongo/bulk';
import type { IntakeDecisionDoc } from '../mongo/documents';

const DAY_MS = 86_400_000;
const PREFIX = 'intake_decisions_';

export const decisionId = (partnerId: string, idempotencyKey: string): string => `${partnerId}:${idempotencyKey}`;

// yyyymmdd of the UTC day holding `at`.
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10).replace(/-/g, '');
}

// The one module that writes intake decisions. A decision is needed again only inside the
// idempotency window, so decisions live in one collection per UTC day: writes go to today's, reads
// look back over the days the window spans, and whole days past it are dropped (no TTL index, no
// scan, nothing that grows).
export class IntakeDecisionStore {
  constructor(
    private readonly db: Db,
    private readonly windowS: number,
  ) {}

  insertNew(docs: readonly IntakeDecisionDoc[], now: Date): Promise<Set<string>> {
    return insertAllNew(this.collection(dayOf(now)), docs);
  }

  // The newest stored decision of each id, from today back to the start of the window (the days
  // are read at once: one round trip, not one a day).
  async byIds(ids: readonly string[], now: Date, signal?: AbortSignal): Promise<Map<string, IntakeDecisionDoc>> {
    const unique = [...new Set(ids)];
    const days = await Promise.all(
      this.daysInWindow(now).map((day) => findByIds(this.collection(day), unique, signal ? { signal } : undefined)),
    );
    const found = new Map<string, IntakeDecisionDoc>();
    for (const day of days) for (const [id, doc] of day) if (!found.has(id)) found.set(id, doc);
    return found;
  }

  async byId(id: string, now: Date, signal?: AbortSignal): Promise<IntakeDecisionDoc | null> {
    return (await this.byIds([id], now, signal)).get(id) ?? null;
  }

  // Drops the day collections wholly outside the window; returns their names.
  async dropExpired(now: Date): Promise<string[]> {
    const keep = new Set(this.daysInWindow(now));
    const names = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    const expired = names.filter(
      (n) => n.startsWith(PREFIX) && n.slice(PREFIX.length) < dayOf(now) && !keep.has(n.slice(PREFIX.length)),
    );
    for (const name of expired) await this.db.dropCollection(name).catch(() => undefined);
    return expired;
  }

  // Today first, back to the day holding the window's start.
  daysInWindow(now: Date): string[] {
    const start = now.getTime() - this.windowS * 1000;
    const days: string[] = [];
    for (let at = now.getTime(); at > start - DAY_MS; at -= DAY_MS) days.push(dayOf(new Date(Math.max(at, start))));
    return [...new Set(days)];
  }

  private collection(day: string): Collection<IntakeDecisionDoc> {
    return this.db.collection<IntakeDecisionDoc>(`${PREFIX}${day}`);
  }
}

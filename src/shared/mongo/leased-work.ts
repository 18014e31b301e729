import type { Collection, Document, Filter } from 'mongodb';

// An outbox worked under leases (the mail outbox, the alerts' webhook posts): an item is queued
// until `next_at`, then held by one sender as `sending` until `claimed_until`.
interface LeasedItem extends Document {
  state: string;
  next_at?: Date;
  claimed_until?: Date;
}

// Items due for a try: queued ones whose time came, and claims a sender that died left behind.
export function dueOrAbandoned<T extends LeasedItem>(now: Date): Filter<T> {
  return {
    $or: [
      { state: 'queued', next_at: { $lte: now } },
      { state: 'sending', claimed_until: { $lte: now } },
    ],
  } as Filter<T>;
}

// An outbox's backlog is counted up to this many at a scrape (its gauge reads the bound past it), so
// a scrape stays short however many items wait.
export const BACKLOG_BOUND = 10_000;

// When the next try falls due: the earliest queued item's time, or the end of the earliest claim (a
// sender that died mid-try); null when nothing waits. A sender at rest sleeps until then.
export async function nextDue<T extends LeasedItem>(items: Collection<T>): Promise<Date | null> {
  const [queued] = await items
    .find<{ next_at?: Date }>({ state: 'queued' } as Filter<T>, { projection: { next_at: 1 } })
    .sort({ next_at: 1 })
    .limit(1)
    .toArray();
  const [claimed] = await items
    .find<{ claimed_until?: Date }>({ state: 'sending' } as Filter<T>, { projection: { claimed_until: 1 } })
    .sort({ claimed_until: 1 })
    .limit(1)
    .toArray();
  const times = [queued?.next_at, claimed?.claimed_until].filter((t): t is Date => t instanceof Date);
  return times.length === 0 ? null : new Date(Math.min(...times.map((t) => t.getTime())));
}

import type { Filter } from 'mongodb';

// An outbox worked under leases (the mail outbox, the alerts' webhook posts): an item is queued
// until `next_at`, then held by one sender as `sending` until `claimed_until`.
interface LeasedItem {
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

import type { Collection, Document, Filter, WithId } from 'mongodb';
import {
  CURSOR_PATTERN,
  suffixOfEntry,
  type ListEntryDoc,
  type ListIndex,
  type ListQuery,
} from '../shared/store/list-index';

// Offset pagination of the small lists (partners, agents: hundreds, not millions): newest first,
// `limit` (1-200, default 50) and `offset`; `next_offset` is null on the last page.
export const PAGE_QUERY = {
  limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  // Bounded so the store's skip (an int64) can take it; no list here is anywhere near that long.
  offset: { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0 },
} as const;

export interface PageRequest {
  limit: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  next_offset: number | null;
}

// Rows are fetched with limit + 1: the extra one only tells whether another page exists.
export function toPage<T>(rows: readonly T[], req: PageRequest): Page<T> {
  const more = rows.length > req.limit;
  return { items: rows.slice(0, req.limit), next_offset: more ? req.offset + req.limit : null };
}

export async function findPage<D extends Document, V>(
  collection: Collection<D>,
  filter: Filter<D>,
  req: PageRequest,
  view: (doc: WithId<D>) => V,
  timeField: 'created_at' | 'at' = 'created_at',
): Promise<Page<V>> {
  const rows = await collection
    .find(filter)
    .sort({ [timeField]: -1, _id: -1 })
    .skip(req.offset)
    .limit(req.limit + 1)
    .toArray();
  const page = toPage(rows, req);
  return { items: page.items.map(view), next_offset: page.next_offset };
}

// Cursor pagination of the lists served by a list read model (deliveries, leads, an agent's leads,
// the audit log): `limit` and the `cursor` of the page before; `next_cursor` is null on the last
// page. A page costs the same however deep it is and whatever is stored.
export const CURSOR_QUERY = {
  limit: PAGE_QUERY.limit,
  cursor: {
    type: 'string',
    pattern: CURSOR_PATTERN,
    description: 'next_cursor of the page before (`<time>|<item>`, URL-encoded)',
  },
} as const;

// A list's time range as the query string gives it (date-times; from inclusive, to exclusive).
export function timeRange(q: { from?: string; to?: string }): Pick<ListQuery, 'from' | 'to'> {
  return {
    from: q.from === undefined ? undefined : new Date(q.from),
    to: q.to === undefined ? undefined : new Date(q.to),
  };
}

export interface CursorRequest {
  limit: number;
  cursor?: string;
}

export interface CursorPage<T> {
  items: T[];
  next_cursor: string | null;
}

export interface ListedItems<D, V> {
  index: ListIndex;
  query: Omit<ListQuery, 'limit' | 'after'>;
  load(refs: string[]): Promise<Map<string, D>>;
  // A filter the entries do not cover but carry the fields of (checked before items are read);
  // when set, entries are scanned in chunks, within `scan` (LIST_SCAN by default) a request.
  keep?(entry: ListEntryDoc): boolean;
  scan?: ScanBudget;
  // False for an item that does not match the filter or its entry (a crash left it stale): not shown.
  matches?(entry: ListEntryDoc, item: D): boolean;
  view(item: D): V;
  // Gives up the entries' reads (the caller's load gives up its own).
  signal?: AbortSignal;
}

// What a request may spend scanning for a filter its entries do not cover: a rare match gives a
// short page, with the cursor to scan on from (next_cursor), instead of a long wait.
export interface ScanBudget {
  entries: number;
  ms: number;
}
export const LIST_SCAN: ScanBudget = { entries: 2000, ms: 100 };
const SCAN_CHUNK = 250;

// Whether another chunk of entries fits the step, at the pace of the chunks read so far: a chunk
// that would end past the budget is not started, so a step ends within it unless its first chunk
// alone does not.
export function scanOn(spent: { chunks: number; ms: number }, budget: ScanBudget): boolean {
  const pace = spent.ms / spent.chunks;
  return (spent.chunks + 1) * SCAN_CHUNK <= budget.entries && spent.ms + pace <= budget.ms;
}

// Reads entries, then their items by _id (only as many as the page still needs); a page shortened
// by stale entries or a filter reads on.
export async function listPage<D, V>(l: ListedItems<D, V>, req: CursorRequest): Promise<CursorPage<V>> {
  const items: V[] = [];
  let after = req.cursor ?? null;
  const started = performance.now();
  for (let chunks = 1; ; chunks++) {
    const page = await l.index.page(
      { ...l.query, after, limit: l.keep ? SCAN_CHUNK : req.limit - items.length },
      l.signal,
    );
    const candidates = l.keep ? page.entries.filter((e) => l.keep!(e)) : page.entries;
    for (let i = 0; i < candidates.length;) {
      const need = req.limit - items.length;
      const batch = candidates.slice(i, i + need);
      i += need;
      const found = await l.load(batch.map((e) => e.ref));
      for (const entry of batch) {
        const item = found.get(entry.ref);
        if (item === undefined || !(l.matches?.(entry, item) ?? true)) continue;
        items.push(l.view(item));
        if (items.length === req.limit) {
          const last = entry === page.entries[page.entries.length - 1] && page.next === null;
          return { items, next_cursor: last ? null : suffixOfEntry(entry) };
        }
      }
    }
    after = page.next;
    if (after === null) break;
    if (l.keep ? !scanOn({ chunks, ms: performance.now() - started }, l.scan ?? LIST_SCAN) : chunks === 3) break;
  }
  return { items, next_cursor: after };
}

import type { Collection, Document, Filter, WithId } from 'mongodb';

// Offset pagination shared by every list of the manager API: newest first, `limit` (1-200, default
// 50) and `offset`; `next_offset` is null on the last page. These are operator views, and an offset
// is easier to use from a shell than an opaque cursor.
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
  const rows = await collection.find(filter).sort({ [timeField]: -1, _id: -1 }).skip(req.offset).limit(req.limit + 1).toArray();
  const page = toPage(rows, req);
  return { items: page.items.map(view), next_offset: page.next_offset };
}

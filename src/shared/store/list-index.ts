import type { Collection, Filter } from 'mongodb';
import { insertAllNew } from '../mongo/bulk';
import { ID_CEILING, MAX_IDS_PER_READ } from './id-index';
import { wellFormed } from '../unicode';

// A list read model: one small entry per (view, item) whose _id sorts in the view's order,
// `<view>|<dimension values...>|<time ISO>|<item id>`, so a page of a view is one _id range read
// newest (or oldest) first, served by the _id index on MongoDB and on the local FerretDB (patch
// 0004) alike, whatever is stored (key parts are escaped to characters both order alike: id-index.ts).
// An entry is written before the change it lists and removed after it leaves the view; a reader
// reads the items themselves by _id and drops entries that no longer match them (a crash between
// the two writes leaves at most a stale entry, never a missing one).
export interface ListEntryDoc {
  _id: string;
  ref: string; // the listed item's _id
  [field: string]: unknown;
}

export interface ListEntry {
  prefix: string; // listPrefix(view, ...dimension values)
  at: Date;
  ref: string;
  tie?: string; // what orders items of the same millisecond (default: ref)
  fields?: Record<string, unknown>;
}

const PLAIN = /^[A-Za-z0-9._-]*$/;

// A key part may be anything (a partner's `source` is free text, a lone surrogate made U+FFFD): it is escaped so the key is
// made only of [A-Za-z0-9%._-], which orders by string order in either store and holds no '|'.
export function keyPart(value: string): string {
  // Ids, states and event names are plain already; escaping them was a few percent of a role's CPU.
  if (PLAIN.test(value)) return value;
  return encodeURIComponent(wellFormed(value)).replace(
    /[!'()*~]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function listPrefix(view: string, ...dims: string[]): string {
  return [view, ...dims.map(keyPart)].join('|');
}

// A cursor is where a page ends, `<time>|<item>`: a position in any view, so the schema can say
// exactly which strings are cursors (URL-encode it: it holds '|' and '%').
export const CURSOR_PATTERN = '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z\\|[A-Za-z0-9%._-]{1,100}$';

export type EntryKey = Pick<ListEntry, 'prefix' | 'at' | 'ref' | 'tie'>;

export function entryId(e: EntryKey): string {
  return `${e.prefix}|${e.at.toISOString()}|${keyPart(e.tie ?? e.ref)}`;
}

export interface ListQuery {
  prefixes: readonly string[]; // merged: one range read each (a dimension not filtered on)
  from?: Date; // inclusive
  to?: Date; // exclusive
  after?: string | null; // a cursor
  limit: number;
  order: 'desc' | 'asc';
}

export interface ListPage {
  entries: ListEntryDoc[];
  next: string | null; // the cursor after the last entry, null when nothing follows
}

export class ListIndex {
  constructor(private readonly entries: Collection<ListEntryDoc>) {}

  // Entries in one insert (one that exists stays: an entry's fields are fixed by its key), then the
  // removed ones in one delete.
  async put(entries: readonly ListEntry[], remove: readonly EntryKey[] = []): Promise<void> {
    await insertAllNew(
      this.entries,
      entries.map((e) => ({ _id: entryId(e), ref: e.ref, ...e.fields })),
    );
    const ids = remove.map(entryId);
    for (let i = 0; i < ids.length; i += MAX_IDS_PER_READ)
      await this.entries.deleteMany({ _id: { $in: ids.slice(i, i + MAX_IDS_PER_READ) } });
  }

  async remove(entries: readonly EntryKey[]): Promise<void> {
    await this.put([], entries);
  }

  // One page across the prefixes, merged by time then item id.
  async page(q: ListQuery, signal?: AbortSignal): Promise<ListPage> {
    const reads = await Promise.all(
      q.prefixes.map(async (prefix) => {
        const docs = await this.entries
          .find(rangeFilter(prefix, q), { sort: { _id: q.order === 'desc' ? -1 : 1 }, limit: q.limit + 1, signal })
          .toArray();
        return docs.map((doc) => ({ doc, suffix: doc._id.slice(prefix.length + 1) }));
      }),
    );
    const merged = reads.flat().sort((a, b) => (a.suffix < b.suffix ? -1 : a.suffix > b.suffix ? 1 : 0));
    if (q.order === 'desc') merged.reverse();
    const page = merged.slice(0, q.limit);
    const more = merged.length > q.limit;
    return { entries: page.map((m) => m.doc), next: more && page.length > 0 ? page[page.length - 1]!.suffix : null };
  }

  // Every entry of the query's range, a page at a time (a bulk action over a whole view).
  async *all(q: Omit<ListQuery, 'limit'>, pageSize = 500): AsyncIterable<ListEntryDoc & { suffix: string }> {
    let after = q.after ?? null;
    do {
      const page = await this.page({ ...q, after, limit: pageSize });
      for (const doc of page.entries) yield { ...doc, suffix: suffixOfEntry(doc) };
      after = page.next;
    } while (after !== null);
  }
}

// The `<time>|<item>` end of an entry's _id: where a page after it starts.
export function suffixOfEntry(entry: Pick<ListEntryDoc, '_id'>): string {
  return entry._id.split('|').slice(-2).join('|');
}

function rangeFilter(prefix: string, q: ListQuery): Filter<ListEntryDoc> {
  let low = `${prefix}|${q.from ? q.from.toISOString() : ''}`;
  let high = `${prefix}|${q.to ? q.to.toISOString() : ID_CEILING}`;
  if (q.after) {
    if (q.order === 'desc') high = minOf(high, `${prefix}|${q.after}`);
    else low = maxOf(low, `${prefix}|${q.after}`);
  }
  // From is inclusive; a cursor is exclusive (its entry was on the last page).
  const lowOp = q.after && q.order === 'asc' && low === `${prefix}|${q.after}` ? '$gt' : '$gte';
  return { _id: { [lowOp]: low, $lt: high } } as Filter<ListEntryDoc>;
}

const minOf = (a: string, b: string): string => (a < b ? a : b);
const maxOf = (a: string, b: string): string => (a > b ? a : b);

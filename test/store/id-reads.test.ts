import { findByIds } from '../../src/shared/mongo/bulk';
import { MAX_IDS_PER_READ } from '../../src/shared/store/id-index';
import { ListIndex, listPrefix, type ListEntryDoc } from '../../src/shared/store/list-index';
import { openStore, type Store } from './support/store';

// Every hot path and every list reads by `_id`: point reads, `$in` lists in chunks, and `_id` ranges in
// `_id` order with a limit (a read model's page). MongoDB serves them from its `_id` index; the local
// store from its `_id` index too, with scripts/services/ferretdb/patches.
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

type Doc = { _id: string; owner: string; lead_id: string; n: number };
const doc = (n: number): Doc => ({
  _id: `id-${String(n).padStart(5, '0')}`,
  owner: `o${n % 3}`,
  lead_id: `le-${n % 7}`,
  n,
});

describe('point reads and $in by _id', () => {
  it('reads more ids than one $in carries, a chunk at a time, with a projection (src/shared/mongo/bulk.ts findByIds)', async () => {
    const c = store.fresh<Doc>('in_chunks');
    const docs = Array.from({ length: MAX_IDS_PER_READ + 150 }, (_, n) => doc(n));
    await c.insertMany(docs);
    const wanted = [...docs.filter((d) => d.n % 2 === 0).map((d) => d._id), 'missing-1', docs[0]!._id];
    const found = await findByIds(c, wanted, { projection: { n: 1 } });
    expect(found.size).toBe(docs.filter((d) => d.n % 2 === 0).length);
    expect(found.get('id-00004')).toEqual({ _id: 'id-00004', n: 4 });
    expect(found.has('missing-1')).toBe(false);
  });

  it('reads one document by _id with a projection (src/shared/store/leads.ts statusOf, lead-refs.ts leadIdOf)', async () => {
    const c = store.fresh<Doc>('point');
    await c.insertMany([doc(1), doc(2)]);
    expect(await c.findOne({ _id: 'id-00002' }, { projection: { owner: 1, n: 1 } })).toEqual({
      _id: 'id-00002',
      owner: 'o2',
      n: 2,
    });
    expect(await c.findOne({ _id: 'id-00009' })).toBeNull();
  });

  it('deletes by _id only where the other fields match too (src/shared/store/lead-refs.ts release, src/processor/dedup-claims.ts release and forget)', async () => {
    const c = store.fresh<Doc>('delete_in');
    await c.insertMany(Array.from({ length: 30 }, (_, n) => doc(n)));
    const ids = Array.from({ length: 30 }, (_, n) => doc(n)._id);
    expect((await c.deleteMany({ _id: { $in: ids.slice(0, 10) }, owner: 'o1' })).deletedCount).toBe(3);
    expect(
      (await c.deleteMany({ _id: { $in: ids.slice(10, 20) }, lead_id: { $in: ['le-0', 'le-1'] } })).deletedCount,
    ).toBe(2);
    expect(await c.countDocuments({})).toBe(25);
  });

  it('deletes everything below an _id (src/shared/overview/minute-recorder.ts prune)', async () => {
    const c = store.fresh<Doc>('delete_below');
    await c.insertMany(Array.from({ length: 10 }, (_, n) => doc(n)));
    expect((await c.deleteMany({ _id: { $lt: 'id-00004' } })).deletedCount).toBe(4);
    expect((await c.find({}).sort({ _id: 1 }).limit(1).toArray())[0]?._id).toBe('id-00004');
  });
});

describe('_id ranges in _id order with a limit', () => {
  it('pages through a collection after the last _id seen (src/shared/store/lead-keys.ts leadIds, list-rebuild.ts, src/processor/waiting-leads.ts, parked-messages.ts)', async () => {
    const c = store.fresh<Doc>('page_after');
    const docs = Array.from({ length: 57 }, (_, n) => doc((n * 37) % 57));
    await c.insertMany(docs);
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const filter: { _id?: { $gt: string } } = after === null ? {} : { _id: { $gt: after } };
      const page = await c
        .find(filter, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .limit(10)
        .toArray();
      if (page.length === 0) break;
      expect(page.every((d) => Object.keys(d).join() === '_id')).toBe(true);
      seen.push(...page.map((d) => d._id));
      after = page[page.length - 1]!._id;
    }
    expect(seen).toEqual(docs.map((d) => d._id).sort());
  });

  it("reads a prefix's range both ways, bounded by time and cursor, as in-memory string order says (src/shared/store/list-index.ts page)", async () => {
    const entries = store.fresh<ListEntryDoc>('list');
    const index = new ListIndex(entries);
    const at = (n: number) => new Date(Date.UTC(2026, 10, 1) + n * 3_600_000);
    const items = Array.from({ length: 60 }, (_, n) => ({
      prefix: listPrefix('dp', `pa-${n % 3}`, n % 2 ? 'lead.ftd' : 'lead.status_changed'),
      at: at(n % 20),
      ref: `dl-${n}`,
    }));
    await index.put(items);
    const prefixes = ['lead.ftd', 'lead.status_changed'].map((e) => listPrefix('dp', 'pa-1', e));
    const mine = items.filter((i) => prefixes.includes(i.prefix));
    const expected = (order: 'asc' | 'desc', from: Date, to: Date) => {
      const refs = mine
        .filter((i) => i.at >= from && i.at < to)
        .sort((a, b) => a.at.getTime() - b.at.getTime() || (a.ref < b.ref ? -1 : 1))
        .map((i) => i.ref);
      return order === 'asc' ? refs : refs.reverse();
    };
    for (const order of ['asc', 'desc'] as const) {
      const got: string[] = [];
      for await (const e of index.all({ prefixes, from: at(3), to: at(15), order }, 4)) got.push(e.ref);
      expect(got).toEqual(expected(order, at(3), at(15)));
    }
    const first = await index.page({ prefixes, limit: 5, order: 'desc' });
    expect(first.entries.map((e) => e.ref)).toEqual(expected('desc', at(0), at(99)).slice(0, 5));
    const second = await index.page({ prefixes, limit: 5, order: 'desc', after: first.next });
    expect(second.entries.map((e) => e.ref)).toEqual(expected('desc', at(0), at(99)).slice(5, 10));
  });

  it('removes list entries by _id, more than one $in carries (src/shared/store/list-index.ts put)', async () => {
    const index = new ListIndex(store.fresh<ListEntryDoc>('list_remove'));
    const items = Array.from({ length: MAX_IDS_PER_READ + 20 }, (_, n) => ({
      prefix: listPrefix('l'),
      at: new Date(n * 1000),
      ref: `le-${n}`,
    }));
    await index.put(items);
    await index.remove(items.slice(10));
    expect(
      (await index.page({ prefixes: [listPrefix('l')], limit: 100, order: 'asc' })).entries.map((e) => e.ref),
    ).toEqual(items.slice(0, 10).map((i) => i.ref));
  });
});

import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { insertAllNew } from '../../src/shared/mongo/bulk';
import { isDuplicateKey } from '../../src/shared/mongo/client';
import type { IdBlockDoc } from '../../src/shared/mongo/documents';
import { IdAllocator } from '../../src/processor/id-allocator';
import { openStore, type Store } from './support/store';

// An insert against a unique index lets exactly one of concurrent inserters in, so inserts under
// deterministic ids are the service's fences: a redelivered batch or a concurrent claimant collides
// on an `_id` (or a unique key) instead of writing twice.
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

type Doc = { _id: string; n: number };

describe('insertMany, unordered, with keys that exist (src/shared/mongo/bulk.ts insertAllNew: lead refs, claims, decisions, keys, list entries)', () => {
  it('inserts every new document and reports each duplicate as code 11000 with its index', async () => {
    const c = store.fresh<Doc>('unordered');
    await c.insertMany([
      { _id: 'b', n: 0 },
      { _id: 'd', n: 0 },
    ]);
    const err = await c
      .insertMany(
        [
          { _id: 'a', n: 1 },
          { _id: 'b', n: 1 },
          { _id: 'c', n: 1 },
          { _id: 'd', n: 1 },
          { _id: 'e', n: 1 },
        ],
        { ordered: false },
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    const writeErrors = [(err as MongoBulkWriteError).writeErrors].flat();
    expect(writeErrors.map((e) => [e.index, e.code])).toEqual([
      [1, 11000],
      [3, 11000],
    ]);
    const stored = await c.find({}).sort({ _id: 1 }).toArray();
    expect(stored).toEqual([
      { _id: 'a', n: 1 },
      { _id: 'b', n: 0 },
      { _id: 'c', n: 1 },
      { _id: 'd', n: 0 },
      { _id: 'e', n: 1 },
    ]);
  });

  it('gives insertAllNew the ids that were taken, the rest stored', async () => {
    const c = store.fresh<Doc>('insert_all_new');
    expect(await insertAllNew(c, [{ _id: 'x', n: 0 }])).toEqual(new Set());
    expect(
      await insertAllNew(c, [
        { _id: 'w', n: 1 },
        { _id: 'x', n: 1 },
        { _id: 'y', n: 1 },
        { _id: 'w', n: 2 },
      ]),
    ).toEqual(new Set(['x', 'w']));
    expect(await c.countDocuments({})).toBe(3);
  });
});

describe('insertOne of a key that exists', () => {
  it('fails with code 11000 (src/shared/mongo/client.ts isDuplicateKey: id blocks, account claims, block upserts)', async () => {
    const c = store.fresh<Doc>('insert_one');
    await c.insertOne({ _id: 'k', n: 0 });
    const err = await c.insertOne({ _id: 'k', n: 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MongoServerError);
    expect(isDuplicateKey(err)).toBe(true);
  });

  it('fails with code 11000 on a unique secondary index too (src/processor/id-allocator.ts: sequence_block_unique)', async () => {
    const c = store.fresh<IdBlockDoc>('unique_secondary');
    await c.createIndex({ sequence: 1, block: 1 }, { unique: true, name: 'sequence_block_unique' });
    await c.insertOne({ _id: 'a', sequence: 's', block: 0, taken_at: new Date() });
    expect(
      isDuplicateKey(
        await c.insertOne({ _id: 'b', sequence: 's', block: 0, taken_at: new Date() }).then(
          () => null,
          (e: unknown) => e,
        ),
      ),
    ).toBe(true);
    await c.insertOne({ _id: 'c', sequence: 't', block: 0, taken_at: new Date() });
  });
});

// Every fence below stands on a unique _id or index deciding between concurrent inserts.
describe('concurrent inserts of one _id from separate connections', () => {
  it('let exactly one win (src/processor/dedup-claims.ts, src/shared/mongo/bulk.ts insertAllNew)', async () => {
    const clients = await Promise.all([0, 1, 2, 3].map(() => openStore()));
    try {
      const name = store.fresh<Doc>('race').collectionName;
      for (let round = 0; round < 10; round++) {
        const results = await Promise.all(
          clients.map((s, n) => insertAllNew(s.db.collection<Doc>(name), [{ _id: `r${round}`, n }])),
        );
        expect(results.filter((taken) => taken.size === 0)).toHaveLength(1);
      }
      expect(await store.db.collection(name).countDocuments({})).toBe(10);
    } finally {
      await Promise.all(clients.map((s) => s.close()));
    }
  });

  it('hand every id block to one allocator (src/processor/id-allocator.ts)', async () => {
    const blocks = store.fresh<IdBlockDoc>('id_blocks');
    await blocks.createIndex({ sequence: 1, block: 1 }, { unique: true, name: 'sequence_block_unique' });
    const allocators = [0, 1, 2].map(() => new IdAllocator(blocks, 'lead', 5));
    const ids = await Promise.all(allocators.flatMap((a) => Array.from({ length: 12 }, () => a.allocate())));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

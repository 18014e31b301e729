import type { Collection, Document } from 'mongodb';
import { openStore, type Store } from './support/store';

// MongoDB's promise about every write: a single-document update reads and writes its document with no
// other write to it in between, so a conditional update is a compare-and-set, `$inc` never loses an
// increment and `findOneAndUpdate` is a claim. Raced here from separate connections, several rounds
// each, on whatever server MONGO_URL names (the local store's build keeps it with patch 0006).
let store: Store;
let racers: Store[];
beforeAll(async () => {
  store = await openStore();
  racers = await Promise.all(Array.from({ length: 8 }, () => openStore()));
});
afterAll(() => Promise.all([store, ...racers].map((s) => s.close())));

const ROUNDS = 10;

// The same collection seen through each racer's own connection.
function through<T extends Document>(c: Collection<T>): Collection<T>[] {
  return racers.map((s) => s.db.collection<T>(c.collectionName));
}

describe('a conditional updateOne on a version field, from 8 connections at once', () => {
  it('modifies for exactly one (src/identity/links.ts use, accounts.ts useTotpStep, src/shared/store/leads.ts apply)', async () => {
    const c = store.fresh<{ _id: string; v: number; by?: number }>('cas_race');
    for (let round = 0; round < ROUNDS; round++) {
      const _id = `doc-${round}`;
      await c.insertOne({ _id, v: 0 });
      const results = await Promise.all(
        through(c).map((r, n) => r.updateOne({ _id, v: 0 }, { $set: { v: 1, by: n } })),
      );
      const winners = results.flatMap((res, n) => (res.modifiedCount === 1 ? [n] : []));
      expect(winners).toHaveLength(1);
      expect(await c.findOne({ _id })).toEqual({ _id, v: 1, by: winners[0] });
    }
  });
});

describe('$set of different fields of one document from 8 connections at once', () => {
  it('keeps every field (src/manager/partner-service.ts: a settings change beside a key rotation)', async () => {
    const c = store.fresh<{ _id: string; [field: string]: unknown }>('set_race');
    for (let round = 0; round < ROUNDS; round++) {
      const _id = `pa-${round}`;
      await c.insertOne({ _id });
      await Promise.all(through(c).map((r, n) => r.updateOne({ _id }, { $set: { [`f${n}`]: n } })));
      expect(await c.findOne({ _id })).toEqual({ _id, f0: 0, f1: 1, f2: 2, f3: 3, f4: 4, f5: 5, f6: 6, f7: 7 });
    }
  });
});

describe('$inc from 8 connections at once', () => {
  it('keeps every increment of 8 writers × 1,000 (src/dispatcher/block-store.ts claim: the epoch counter)', async () => {
    const c = store.fresh<{ _id: string; n: number }>('inc_race');
    await c.insertOne({ _id: 'counter', n: 0 });
    await Promise.all(
      through(c).map(async (r) => {
        for (let i = 0; i < 1000; i++) await r.updateOne({ _id: 'counter' }, { $inc: { n: 1 } });
      }),
    );
    expect(await c.findOne({ _id: 'counter' })).toEqual({ _id: 'counter', n: 8000 });
  }, 120_000);

  it('hands each of 8 upserting claimants its own epoch (src/dispatcher/block-store.ts claim)', async () => {
    const c = store.fresh<{ _id: string; epoch: number }>('epoch_race');
    for (let round = 0; round < ROUNDS; round++) {
      const _id = `p${round}`;
      const epochs = await Promise.all(
        through(c).map(
          async (r) =>
            (await r.findOneAndUpdate({ _id }, { $inc: { epoch: 1 } }, { upsert: true, returnDocument: 'after' }))
              ?.epoch,
        ),
      );
      expect([...epochs].sort((a, b) => a! - b!)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    }
  });
});

describe('findOneAndUpdate as a claim, from 8 connections at once', () => {
  it('gives the document to exactly one (src/dispatcher/delivery-store.ts requeue: a manager retrying a dead delivery)', async () => {
    const c = store.fresh<{ _id: string; state: string; by?: number }>('claim_race');
    for (let round = 0; round < ROUNDS; round++) {
      const _id = `dl-${round}`;
      await c.insertOne({ _id, state: 'dead' });
      const taken = await Promise.all(
        through(c).map((r, n) =>
          r.findOneAndUpdate(
            { _id, state: { $in: ['dead', 'delivered'] } },
            { $set: { state: 'queued', by: n } },
            { returnDocument: 'after' },
          ),
        ),
      );
      const winners = taken.filter((doc) => doc !== null);
      expect(winners).toHaveLength(1);
      expect(await c.findOne({ _id })).toEqual(winners[0]);
    }
  });
});

describe('a conditional update racing a conditional delete of the same document', () => {
  it('lets one of them happen, never both (src/processor/dedup-claims.ts takeOver and release, src/dispatcher/block-store.ts save)', async () => {
    const c = store.fresh<{ _id: string; owner: string }>('update_delete_race');
    const [deleter, ...updaters] = through(c);
    for (let round = 0; round < ROUNDS * 2; round++) {
      const _id = `claim-${round}`;
      await c.insertOne({ _id, owner: 'old' });
      const [deleted, ...updated] = await Promise.all([
        deleter!.deleteMany({ _id: { $in: [_id] }, owner: 'old' }),
        ...updaters.map((r, n) => r.updateOne({ _id, owner: 'old' }, { $set: { owner: `new-${n}` } })),
      ]);
      const modified = updated.flatMap((res, n) => (res.modifiedCount === 1 ? [n] : []));
      const after = await c.findOne({ _id });
      if (deleted.deletedCount === 1) {
        expect(modified).toEqual([]);
        expect(after).toBeNull();
      } else {
        expect(modified).toHaveLength(1);
        expect(after).toEqual({ _id, owner: `new-${modified[0]}` });
      }
    }
  });
});

describe('updateMany racing single-document updates of the documents it matches', () => {
  it('loses no write of either (src/dispatcher/block-store.ts: claim stamps a partition while save writes its blocks)', async () => {
    type Block = { _id: string; partition: number; epoch: number; held: number };
    const c = store.fresh<Block>('many_race');
    const ids = Array.from({ length: 20 }, (_, i) => `b-${String(i).padStart(2, '0')}`);
    await c.insertMany(ids.map((_id) => ({ _id, partition: 3, epoch: 0, held: 0 })));
    const [stamper, ...writers] = through(c);
    for (let round = 1; round <= ROUNDS; round++) {
      const stamped = stamper!.updateMany({ partition: 3, epoch: { $lt: round } }, { $set: { epoch: round } });
      await Promise.all([
        stamped,
        ...writers.map(async (r, n) => {
          for (const _id of ids.slice(n * 2, n * 2 + 6)) await r.updateOne({ _id }, { $inc: { held: 1 } });
        }),
      ]);
      const docs = await c.find({}).sort({ _id: 1 }).toArray();
      expect(docs.map((d) => d.epoch)).toEqual(ids.map(() => round));
      expect(docs.map((d) => d.held)).toEqual(ids.map((_, i) => round * heldPerRound(i, writers.length)));
    }
  });
});

// How many of the writers above increment document i once a round (writer n takes ids 2n .. 2n+5).
function heldPerRound(i: number, writers: number): number {
  let n = 0;
  for (let w = 0; w < writers; w++) if (i >= w * 2 && i < w * 2 + 6) n++;
  return n;
}

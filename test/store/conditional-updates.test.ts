import { MongoBulkWriteError } from 'mongodb';
import { isDuplicateKey } from '../../src/shared/mongo/client';
import { openStore, type Store } from './support/store';

// Updates that name the version they were computed from: matched only while the document is still
// as its writer read it, nothing written otherwise. Their atomicity under concurrent writers is
// raced in atomic-updates.test.ts; the match semantics are checked here.
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

describe('updateOne on a version it read', () => {
  it('matches an equal Date and refuses a later one (src/shared/store/leads.ts apply: updated_at)', async () => {
    const c = store.fresh<{ _id: string; updated_at: Date; history: unknown[]; phone_enc?: string }>('lead_version');
    const read = new Date('2026-11-27T10:00:00.123Z');
    await c.insertOne({ _id: 'le-1', updated_at: read, history: [{ n: 0 }], phone_enc: 'x' });
    const change = {
      $set: { updated_at: new Date('2026-11-27T10:00:01.000Z'), history: [{ n: 0 }, { n: 1 }] },
      $unset: { phone_enc: '' as const },
    };
    expect((await c.updateOne({ _id: 'le-1', updated_at: read }, change)).matchedCount).toBe(1);
    expect((await c.updateOne({ _id: 'le-1', updated_at: read }, change)).matchedCount).toBe(0);
    expect(await c.findOne({ _id: 'le-1' })).toEqual({
      _id: 'le-1',
      updated_at: new Date('2026-11-27T10:00:01.000Z'),
      history: [{ n: 0 }, { n: 1 }],
    });
  });

  it('records an attempt with $set, $push and $unset only while state and count are as read (src/dispatcher/delivery-store.ts recordAttempt)', async () => {
    const c = store.fresh<{ _id: string; state: string; attempts_made: number; attempts: unknown[]; held_by?: string }>(
      'delivery_version',
    );
    await c.insertOne({ _id: 'dl-1', state: 'queued', attempts_made: 0, attempts: [], held_by: 'dl-0' });
    const fence = { _id: 'dl-1', state: 'queued', attempts_made: 0 };
    const attempt = {
      $set: { state: 'queued', attempts_made: 1 },
      $push: { attempts: { attempt: 1 } },
      $unset: { held_by: '' as const },
    };
    expect((await c.updateOne(fence, attempt)).matchedCount).toBe(1);
    expect((await c.updateOne(fence, attempt)).matchedCount).toBe(0);
    expect(await c.findOne({ _id: 'dl-1' })).toEqual({
      _id: 'dl-1',
      state: 'queued',
      attempts_made: 1,
      attempts: [{ attempt: 1 }],
    });
  });

  it('counts a changed document as modified once (src/processor/dedup-claims.ts takeOver, src/identity/passkeys.ts counter)', async () => {
    const c = store.fresh<{ _id: string; owner: string; claimed_at: Date }>('claim_version');
    const claimedAt = new Date('2026-10-01T00:00:00Z');
    await c.insertOne({ _id: 'g:phone:h', owner: 'pa-1:k1', claimed_at: claimedAt });
    const takeOver = (owner: string) =>
      c.updateOne(
        { _id: 'g:phone:h', owner: 'pa-1:k1', claimed_at: claimedAt },
        { $set: { owner, claimed_at: new Date() } },
      );
    expect((await takeOver('pa-2:k2')).modifiedCount).toBe(1);
    expect((await takeOver('pa-3:k3')).modifiedCount).toBe(0);
  });

  it('matches null on a field that is null or absent, dotted paths included (src/identity/links.ts used_at, accounts.ts totp.last_step)', async () => {
    const c = store.fresh<{ _id: string; used_at?: Date | null; totp?: { last_step?: number | null } }>('null_match');
    await c.insertMany([
      { _id: 'a', used_at: null, totp: {} },
      { _id: 'b', totp: { last_step: null } },
    ]);
    expect((await c.updateOne({ _id: 'a', used_at: null }, { $set: { used_at: new Date() } })).modifiedCount).toBe(1);
    expect((await c.updateOne({ _id: 'a', used_at: null }, { $set: { used_at: new Date() } })).modifiedCount).toBe(0);
    for (const id of ['a', 'b']) {
      expect(
        (await c.updateOne({ _id: id, 'totp.last_step': null }, { $set: { 'totp.last_step': 7 } })).modifiedCount,
      ).toBe(1);
      expect(
        (await c.updateOne({ _id: id, 'totp.last_step': null }, { $set: { 'totp.last_step': 8 } })).modifiedCount,
      ).toBe(0);
    }
    expect(await c.findOne({ _id: 'b' })).toEqual({ _id: 'b', totp: { last_step: 7 } });
  });

  it('adds to a set once (src/identity/passkeys.ts passkey_ids)', async () => {
    const c = store.fresh<{ _id: string; passkey_ids: string[] }>('add_to_set');
    await c.insertOne({ _id: 'ac-1', passkey_ids: ['p1'] });
    for (const id of ['p2', 'p2', 'p1']) await c.updateOne({ _id: 'ac-1' }, { $addToSet: { passkey_ids: id } });
    expect((await c.findOne({ _id: 'ac-1' }))?.passkey_ids).toEqual(['p1', 'p2']);
  });
});

describe('findOneAndUpdate', () => {
  it('moves a document from one of some states, returns it after, or null (src/dispatcher/delivery-store.ts requeue, replay-runner.ts)', async () => {
    const c = store.fresh<{ _id: string; state: string; manual_retries: unknown[] }>('find_and_update');
    await c.insertOne({ _id: 'dl-1', state: 'dead', manual_retries: [] });
    const requeue = () =>
      c.findOneAndUpdate(
        { _id: 'dl-1', state: { $in: ['dead', 'delivered'] } },
        { $set: { state: 'queued' }, $push: { manual_retries: { by: 'mgr' } } },
        { returnDocument: 'after' },
      );
    expect(await requeue()).toEqual({ _id: 'dl-1', state: 'queued', manual_retries: [{ by: 'mgr' }] });
    expect(await requeue()).toBeNull();
  });

  it('counts with $inc, creating the document on the first call (src/dispatcher/block-store.ts claim)', async () => {
    const c = store.fresh<{ _id: string; epoch: number }>('epochs');
    const claim = async () =>
      (await c.findOneAndUpdate({ _id: 'p3' }, { $inc: { epoch: 1 } }, { upsert: true, returnDocument: 'after' }))
        ?.epoch;
    expect(await claim()).toBe(1);
    expect(await claim()).toBe(2);
  });
});

describe("a partition's epoch fence (src/dispatcher/block-store.ts)", () => {
  type Block = { _id: string; partition: number; epoch?: number; blocker: string };
  const noLaterThan = (epoch: number) => ({ $or: [{ epoch: { $lte: epoch } }, { epoch: { $exists: false } }] });

  it('stamps blocks of no later epoch, those without one included', async () => {
    const c = store.fresh<Block>('blocks_stamp');
    await c.insertMany([
      { _id: 'a', partition: 3, blocker: 'x' },
      { _id: 'b', partition: 3, epoch: 1, blocker: 'x' },
      { _id: 'c', partition: 3, epoch: 5, blocker: 'x' },
      { _id: 'd', partition: 4, blocker: 'x' },
    ]);
    expect((await c.updateMany({ partition: 3, ...noLaterThan(2) }, { $set: { epoch: 3 } })).modifiedCount).toBe(2);
    expect(
      (
        await c
          .find({ partition: { $in: [3] } })
          .sort({ _id: 1 })
          .toArray()
      ).map((b) => b.epoch),
    ).toEqual([3, 3, 5]);
  });

  it('replaces or creates a block under the fence, and a block of a later epoch refuses it with a duplicate key', async () => {
    const c = store.fresh<Block>('blocks_save');
    const save = (epoch: number, blocker: string) =>
      c.replaceOne({ _id: 'pa-1:le-1', ...noLaterThan(epoch) }, { partition: 3, epoch, blocker }, { upsert: true });
    expect((await save(1, 'dl-a')).upsertedCount).toBe(1);
    expect((await save(2, 'dl-b')).matchedCount).toBe(1);
    expect(
      isDuplicateKey(
        await save(1, 'dl-c').then(
          () => null,
          (e: unknown) => e,
        ),
      ),
    ).toBe(true);
    expect((await c.deleteOne({ _id: 'pa-1:le-1', ...noLaterThan(1) })).deletedCount).toBe(0);
    expect(await c.findOne({ _id: 'pa-1:le-1' })).toEqual({
      _id: 'pa-1:le-1',
      partition: 3,
      epoch: 2,
      blocker: 'dl-b',
    });
  });
});

describe('upserts', () => {
  it('create nested fields from dotted $set paths and add to them later (src/shared/overview/minute-recorder.ts, src/processor/agent-roster.ts)', async () => {
    const c = store.fresh<{ _id: string; charts?: Record<string, Record<string, Record<string, number>>> }>(
      'upsert_paths',
    );
    const write = (sets: [string, Record<string, number>][]) =>
      c.bulkWrite(
        sets.map(([_id, $set]) => ({ updateOne: { filter: { _id }, update: { $set }, upsert: true } })),
        { ordered: false },
      );
    await write([
      ['h1|w1', { 'charts.leads.m00.accepted': 2 }],
      ['h1|w2', { 'charts.leads.m00.accepted': 1 }],
    ]);
    await write([['h1|w1', { 'charts.leads.m01.accepted': 4, 'charts.leads.m00.refused': 1 }]]);
    expect(await c.findOne({ _id: 'h1|w1' })).toEqual({
      _id: 'h1|w1',
      charts: { leads: { m00: { accepted: 2, refused: 1 }, m01: { accepted: 4 } } },
    });
  });

  it('replace whole documents, creating those missing (src/processor/reports/report-lead-store.ts replace, src/dispatcher/endpoint-keeper.ts)', async () => {
    const c = store.fresh<{ _id: string; through: number; x?: number }>('replace_upsert');
    await c.insertOne({ _id: 'a', through: 1, x: 1 });
    const states = [
      { _id: 'a', through: 5 },
      { _id: 'b', through: 2 },
    ];
    const res = await c.bulkWrite(
      states.map((s) => ({ replaceOne: { filter: { _id: s._id }, replacement: s, upsert: true } })),
      { ordered: false },
    );
    expect([res.matchedCount, res.upsertedCount]).toEqual([1, 1]);
    expect(await c.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', through: 5 },
      { _id: 'b', through: 2 },
    ]);
  });
});

// FerretDB 1.x stops an update command at its first failing statement, even unordered (MongoDB 7
// runs them all): the service sends no update that expects an error, so an update matching nothing
// must be an answer, not an error, and every other statement of the command must run.
describe('unordered bulk updates with conditions some documents fail', () => {
  it('apply every matching statement and count the rest as unmatched (src/processor/reports/report-lead-store.ts save)', async () => {
    const c = store.fresh<{ _id: string; through: number }>('bulk_through');
    await c.insertMany([
      { _id: 'a', through: 5 },
      { _id: 'b', through: 1 },
      { _id: 'c', through: 9 },
      { _id: 'd', through: 2 },
    ]);
    const res = await c.bulkWrite(
      ['a', 'b', 'c', 'd'].map((_id) => ({
        updateOne: { filter: { _id, through: { $lt: 4 } }, update: { $set: { through: 4 } } },
      })),
      { ordered: false },
    );
    expect(res.matchedCount).toBe(2);
    expect((await c.find({}).sort({ _id: 1 }).toArray()).map((d) => d.through)).toEqual([5, 4, 9, 4]);
  });

  it('report a colliding insert among them as 11000, having run the other statements (src/shared/reports/cell-store.ts allApplied)', async () => {
    const c = store.fresh<{ _id: string; v: number }>('bulk_cas');
    await c.insertMany([
      { _id: 'a', v: 1 },
      { _id: 'b', v: 1 },
    ]);
    const err = await c
      .bulkWrite(
        [
          { updateOne: { filter: { _id: 'a', v: 1 }, update: { $set: { v: 2 } } } },
          { insertOne: { document: { _id: 'b', v: 1 } } },
          { insertOne: { document: { _id: 'c', v: 1 } } },
        ],
        { ordered: false },
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    expect([(err as MongoBulkWriteError).writeErrors].flat().map((e) => e.code)).toEqual([11000]);
    expect((await c.find({}).sort({ _id: 1 }).toArray()).map((d) => d.v)).toEqual([2, 1, 1]);
  });
});

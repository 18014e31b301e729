import { MongoClient, type Db } from 'mongodb';
import { Counter } from 'prom-client';
import type { Attempted } from '../../src/dispatcher/delivery-attempt';
import { recordAttempt } from '../../src/dispatcher/lead-owner/lead-writes';
import { RecordBatcher } from '../../src/dispatcher/lead-owner/lead-writes';
import { createLogger } from '../../src/shared/logger';
import { BlockStore } from '../../src/dispatcher/lead-owner/block-store';
import { DeliveryStore, newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import type { BlockState } from '../../src/dispatcher/lead-owner/lead-lines';
import type { DeliveryBlockDoc, DeliveryDoc, PartitionEpochDoc } from '../../src/shared/mongo/documents';
import type { LeadEvent } from '../../src/shared/schemas';
import { ListIndex } from '../../src/shared/store/list-index';
import { testConfig } from '../support/test-config';

// The store, not the instance's memory, decides whose attempt is recorded: an instance that lost
// its partitions without knowing (frozen, or cut off from Kafka) and records late an attempt the new
// owner already made and recorded, or writes a lead's block the new owner holds, is refused, on the
// real MongoDB-wire server.
const config = testConfig();
let mongo: MongoClient;
let db: Db;

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
  db = mongo.db(`${config.mongo.db}-fence`);
});

afterAll(async () => {
  await db.dropDatabase();
  await mongo.close();
});

const event: LeadEvent = {
  event_id: 'le-9:1',
  event: 'lead.status_changed',
  lead_id: 'le-9',
  partner_id: 'pa-1',
  external_lead_id: 'ext-9',
  our_status: 'contacted',
  is_depositor: false,
  occurred_at: '2026-11-27T10:00:00.000Z',
};
const ok = { httpStatus: 200, error: null, responseBody: 'ok', durationMs: 60 };
const later = { httpStatus: 503, error: null, responseBody: 'later', durationMs: 70 };

it('records an attempt only while the record is as the attempt found it', async () => {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  const store = new DeliveryStore(deliveries, new ListIndex(db.collection('delivery_list')));
  const held = newDeliveryDoc(event, 5, new Date('2026-11-27T10:00:01.000Z'), { heldBy: 'dl-before' });
  await store.insertNew([held]);
  const read = (await deliveries.findOne({ _id: held._id }))!; // both owners read it before attempting

  // The new owner's attempt is recorded; the old owner's attempt of the same turn comes after it.
  expect(
    await store.recordAttempt(read, new Date('2026-11-27T10:00:41.000Z'), ok, {
      state: 'delivered',
      attemptsMade: 1,
      attemptsLeft: 0,
    }),
  ).toBe(true);
  expect(
    await store.recordAttempt(read, new Date('2026-11-27T10:00:22.000Z'), later, {
      state: 'queued',
      attemptsMade: 1,
      attemptsLeft: 4,
      nextAttemptAt: Date.parse('2026-11-27T10:00:23.000Z'),
      tier: 'retry1',
    }),
  ).toBe(false);

  expect(await deliveries.findOne({ _id: held._id })).toMatchObject({
    state: 'delivered',
    attempts_made: 1,
    last_http_status: 200,
    attempts: [{ attempt: 1, http_status: 200 }],
  });
});

it("writes a late first record only where no owner's record came first", async () => {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  const store = new DeliveryStore(deliveries, new ListIndex(db.collection('delivery_list')));
  const delivered = { state: 'delivered', attemptsMade: 1, attemptsLeft: 0 } as const;
  const first = (at: string, result: typeof ok, e = event) =>
    newDeliveryDoc(e, 5, new Date(at), { at: new Date(at), result, decision: delivered });
  // The old owner's delivery, answered after its lease: no record yet, so its own is written.
  const alone = first('2026-11-27T10:00:05.000Z', ok, { ...event, event_id: 'le-9:2' });
  expect(await store.insertFirst(alone)).toBe(true);
  expect(await deliveries.findOne({ _id: alone._id })).toMatchObject({ state: 'delivered' });
  // The new owner recorded its own attempt first: the late one is refused, and the record is the new owner's.
  const recorded = first('2026-11-27T10:00:41.000Z', later, { ...event, event_id: 'le-9:3' });
  await store.insertNew([recorded]);
  expect(await store.insertFirst(first('2026-11-27T10:00:06.000Z', ok, { ...event, event_id: 'le-9:3' }))).toBe(false);
  expect(await deliveries.findOne({ _id: recorded._id })).toMatchObject({ last_http_status: 503 });
});

it('refuses a block write of an owner once a later owner claimed the partition', async () => {
  const blocks = db.collection<DeliveryBlockDoc>('delivery_blocks');
  const store = new BlockStore(blocks, db.collection<PartitionEpochDoc>('delivery_block_epochs'));
  const lead = { endpoint: 'pa-1', leadId: 'le-9' };
  await blocks.insertOne({
    _id: 'pa-1:le-8',
    partner_id: 'pa-1',
    lead_id: 'le-8',
    partition: 3,
    blocker: 'dl-8',
    held: [],
    updated_at: new Date(),
  }); // from before epochs

  const old = await store.claim(3);
  expect(await store.save(lead, 3, { blocker: 'dl-a', held: ['dl-b'] }, old)).toBe(true);
  const next = await store.claim(3); // the partition moved: the new owner stamps its blocks
  expect(next).toBe(old + 1);
  expect(await blocks.findOne({ _id: 'pa-1:le-8' })).toMatchObject({ epoch: next });

  // The old owner, thawed, still writes: a change and a removal, both refused.
  expect(await store.save(lead, 3, { blocker: 'dl-b', held: [] }, old)).toBe(false);
  await store.save(lead, 3, null, old);
  expect(await blocks.findOne({ _id: 'pa-1:le-9' })).toMatchObject({ blocker: 'dl-a', held: ['dl-b'], epoch: next });

  // The new owner writes as it decides.
  expect(await store.save(lead, 3, { blocker: 'dl-b', held: [] }, next)).toBe(true);
  await store.save(lead, 3, null, next);
  expect(await blocks.findOne({ _id: 'pa-1:le-9' })).toBeNull();
});

it('writes the blocks of many leads saved together in one command per kind, each still fenced', async () => {
  const watched = await MongoClient.connect(config.mongo.url, { monitorCommands: true });
  try {
    const wdb = watched.db(`${config.mongo.db}-fence`);
    const blocks = wdb.collection<DeliveryBlockDoc>('delivery_blocks');
    const store = new BlockStore(blocks, wdb.collection<PartitionEpochDoc>('delivery_block_epochs'));
    const epoch = await store.claim(4);
    await blocks.insertOne({
      _id: 'pa-2:le-late',
      partner_id: 'pa-2',
      lead_id: 'le-late',
      partition: 4,
      blocker: 'dl-later-owner',
      held: [],
      epoch: epoch + 1,
      updated_at: new Date(),
    }); // a later owner's block: this owner's write of it is refused, the others' are not
    const writes: string[] = [];
    watched.on('commandStarted', (e) => {
      if (['update', 'delete'].includes(e.commandName) && e.command[e.commandName] === 'delivery_blocks')
        writes.push(e.commandName);
    });
    const leads = Array.from({ length: 40 }, (_, i) => `le-${i}`);
    const saves = (block: (leadId: string) => BlockState | null) =>
      Promise.all(leads.map((leadId) => store.save({ endpoint: 'pa-2', leadId }, 4, block(leadId), epoch)));
    expect(await saves((leadId) => ({ blocker: `dl-${leadId}`, held: [] }))).toEqual(leads.map(() => true));
    expect(await blocks.countDocuments({ partner_id: 'pa-2', epoch })).toBe(leads.length);
    await saves(() => null);
    expect(await blocks.countDocuments({ partner_id: 'pa-2', epoch })).toBe(0);
    expect(writes).toEqual(['update', 'delete']);

    // A batch with a block a later owner holds: that one is refused, the others are written.
    const mixed = await Promise.all([
      store.save({ endpoint: 'pa-2', leadId: 'le-1' }, 4, { blocker: 'dl-1', held: [] }, epoch),
      store.save({ endpoint: 'pa-2', leadId: 'le-late' }, 4, { blocker: 'dl-stale', held: [] }, epoch),
      store.save({ endpoint: 'pa-2', leadId: 'le-2' }, 4, { blocker: 'dl-2', held: [] }, epoch),
    ]);
    expect(mixed).toEqual([true, false, true]);
    expect(await blocks.countDocuments({ partner_id: 'pa-2', epoch })).toBe(2);
    expect(await blocks.findOne({ _id: 'pa-2:le-late' })).toMatchObject({ blocker: 'dl-later-owner' });
  } finally {
    await watched.close();
  }
});

it('reads the records asked for one at a time within a few milliseconds in one command, each its own', async () => {
  const watched = await MongoClient.connect(config.mongo.url, { monitorCommands: true });
  try {
    const deliveries = watched.db(`${config.mongo.db}-fence`).collection<DeliveryDoc>('deliveries');
    const store = new DeliveryStore(deliveries, new ListIndex(deliveries.db.collection('delivery_list')));
    const at = new Date('2026-11-27T10:00:01.000Z');
    const docs = Array.from({ length: 30 }, (_, i) =>
      newDeliveryDoc({ ...event, event_id: `le-r${i}:0`, lead_id: `le-r${i}` }, 5, at, { heldBy: 'dl-x' }),
    );
    await store.insertNew(docs);
    const finds: unknown[] = [];
    watched.on('commandStarted', (e) => {
      if (e.commandName === 'find' && e.command.find === 'deliveries') finds.push(e.command.filter);
    });
    const ids = [...docs.map((d) => d._id), 'dl-missing'];
    const read = await Promise.all(ids.map((id) => store.get(id)));
    expect(read.map((d) => d?._id ?? null)).toEqual([...docs.map((d) => d._id), null]);
    expect(finds).toHaveLength(1);
    expect(await store.getMany(['dl-missing', docs[3]!._id])).toEqual([
      null,
      expect.objectContaining({ _id: docs[3]!._id }),
    ]);
  } finally {
    await watched.close();
  }
});

it('counts as unrecorded an attempt whose record another owner wrote first, and only those', async () => {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  const store = new DeliveryStore(deliveries, new ListIndex(db.collection('delivery_list')));
  const unrecorded = new Counter({ name: 'fence_test_unrecorded_total', help: 'test', registers: [] });
  const deps = { store, logger: createLogger('silent'), metrics: { attemptsUnrecorded: unrecorded } };
  const batcher = new RecordBatcher(store, deps.logger, deps.metrics);
  const delivered = { state: 'delivered', attemptsMade: 1, attemptsLeft: 0 } as const;
  const at = new Date('2026-11-27T10:01:00.000Z');
  const attempted = (e: LeadEvent) => newDeliveryDoc(e, 5, at, { at, result: ok, decision: delivered });
  const count = async () => (await unrecorded.get()).values[0]?.value ?? 0;

  // The thawed owner's late record came first: the new owner, which sent it too, is not recorded.
  const raced = { ...event, event_id: 'le-9:4' };
  expect(await store.insertFirst(attempted(raced))).toBe(true);
  await batcher.add(attempted(raced), () => false);
  expect(await count()).toBe(1);
  // A record with no attempt (held, or waiting on a tier) that existed is no repeat.
  await batcher.add(newDeliveryDoc(raced, 5, at, { heldBy: 'dl-x' }), () => false);
  await batcher.add(attempted({ ...event, event_id: 'le-9:5' }), () => false);
  expect(await count()).toBe(1);

  // An attempt recorded by the other owner meanwhile: refused, and counted.
  const read = newDeliveryDoc({ ...event, event_id: 'le-9:6' }, 5, at, { heldBy: 'dl-y' });
  await store.insertNew([read]);
  const done = { at, result: ok, decision: delivered } as Attempted;
  expect(await recordAttempt(deps, read, done)).toBe(true);
  expect(await recordAttempt(deps, read, done)).toBe(false);
  expect(await count()).toBe(2);
});

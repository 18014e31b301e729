import type { Collection, Document, Filter, FindOptions } from 'mongodb';
import { connectMongo, ensureIndexes, isDuplicateKey, type Mongo } from '../../src/shared/mongo/client';
import { kind } from './support/store';
import { planOf } from './support/plan';

// The indexes the service creates at start (src/shared/mongo/client.ts ensureIndexes): they exist
// under their names, unique where the service relies on it, and MongoDB's planner uses them for the
// queries that need them. FerretDB 1.x reads by no index but `_id`'s, and by that one only as built
// with scripts/services/ferretdb/patches: there the `_id` shapes are checked, the others skipped.
let mongo: Mongo;
beforeAll(async () => {
  mongo = await connectMongo({
    mongo: { url: process.env.MONGO_URL as string, db: process.env.STORE_TEST_DB as string },
  });
  await ensureIndexes(mongo.collections);
});
afterAll(() => mongo.client.close());

const INDEXES: [keyof Mongo['collections'], string, Document, boolean][] = [
  ['partners', 'api_key_hash_unique', { api_key_hash: 1 }, true],
  ['idBlocks', 'sequence_block_unique', { sequence: 1, block: 1 }, true],
  ['clients', 'lead_id_unique', { lead_id: 1 }, true],
  ['deposits', 'lead_id', { lead_id: 1 }, false],
  ['deliveryBlocks', 'partition', { partition: 1 }, false],
  ['endpointHealth', 'state', { state: 1 }, false],
  ['replayJobs', 'partition_state', { partition: 1, state: 1 }, false],
  ['agents', 'supervisor_id', { supervisor_id: 1 }, false],
];

it('creates every index again without error, dropping retired ones that are not there (src/shared/mongo/client.ts ensureIndexes, at every start)', async () => {
  await expect(ensureIndexes(mongo.collections)).resolves.toBeUndefined();
});

it.each(INDEXES)('has %s.%s (src/shared/mongo/client.ts ensureIndexes)', async (collection, name, key, unique) => {
  const index = (await mongo.collections[collection].listIndexes().toArray()).find((i) => i.name === name);
  expect(index?.key).toEqual(key);
  expect(Boolean(index?.unique)).toBe(unique);
});

it('relies on no TTL index: expiry is in code, day and period collections dropped whole (src/shared/store/intake-decisions.ts and the other day stores)', async () => {
  for (const [collection] of INDEXES) {
    for (const index of await mongo.collections[collection].listIndexes().toArray())
      expect(index.expireAfterSeconds).toBeUndefined();
  }
});

it.each([
  ['partners', { api_key_hash: 'h1' }],
  ['clients', { lead_id: 'le-1' }],
] as const)(
  'refuses a second %s document with the same unique key, code 11000 (src/manager/partner-service.ts; the processor lifecycle: clients by lead)',
  async (collection, doc) => {
    const c = mongo.collections[collection] as unknown as Collection<{ _id: string } & Document>;
    await c.insertOne({ _id: `${collection}-1`, ...doc });
    expect(
      isDuplicateKey(
        await c.insertOne({ _id: `${collection}-2`, ...doc }).then(
          () => null,
          (e: unknown) => e,
        ),
      ),
    ).toBe(true);
  },
);

type Shape = [string, keyof Mongo['collections'], Filter<{ _id: string } & Document>, FindOptions, string];
const SHAPES: Shape[] = [
  [
    "a partition's blocks (src/dispatcher/block-store.ts forPartitions)",
    'deliveryBlocks',
    { partition: { $in: [1, 2] } },
    {},
    'partition',
  ],
  [
    "a partition's running replay jobs (src/dispatcher/replay-runner.ts)",
    'replayJobs',
    { partition: 1, state: 'running' },
    {},
    'partition_state',
  ],
  [
    'the newest id block of a sequence (src/processor/id-allocator.ts)',
    'idBlocks',
    { sequence: 'lead' },
    { sort: { block: -1 }, limit: 1 },
    'sequence_block_unique',
  ],
  [
    "a supervisor's team (src/manager/agent-service.ts)",
    'agents',
    { supervisor_id: 'ag-1' },
    { sort: { name: 1, _id: 1 }, limit: 200 },
    'supervisor_id',
  ],
  ['paused endpoints (src/dispatcher/endpoint-gate.ts)', 'endpointHealth', { state: 'paused' }, {}, 'state'],
  ['ids in a $in (src/shared/mongo/bulk.ts findByIds)', 'leads', { _id: { $in: ['le-1', 'le-2'] } }, {}, '_id_'],
  [
    'an _id range in _id order, limited (src/shared/store/list-index.ts page)',
    'leadList',
    { _id: { $gte: 'l|2026', $lt: 'l|~' } },
    { sort: { _id: -1 }, limit: 21 },
    '_id_',
  ],
];

const servedHere = (shape: Shape) => kind === 'mongodb' || shape[4] === '_id_';
const run = SHAPES.filter(servedHere);
const skipped = SHAPES.filter((shape) => !servedHere(shape));
it.each(run)(
  'serves %s from its index, in index order where sorted',
  async (_what, collection, filter, options, index) => {
    const c = mongo.collections[collection] as unknown as Collection<{ _id: string } & Document>;
    await c.insertOne({
      _id: `plan-${index}`,
      partition: 9,
      state: 'x',
      sequence: 'other',
      block: 0,
      supervisor_id: 'ag-0',
      lead_id: `le-plan-${index}`,
      api_key_hash: `plan-${index}`,
    });
    const plan = planOf(await c.find(filter, options).explain('queryPlanner'));
    expect(plan?.indexes).toContain(index);
    if (kind === 'mongodb' && options.sort && Object.keys(options.sort).length === 1)
      expect(plan?.stages).not.toContain('SORT');
  },
);
if (skipped.length > 0) it.skip.each(skipped)('serves %s from its index (MongoDB only)', () => undefined);

import { MongoClient, type Collection } from 'mongodb';
import { testConfig } from '../support/test-config';

// Read models are read a page at a time by `_id` range in `_id` order. On the local
// default the range, the order and the limit are pushed down to the _id index
// (scripts/services/ferretdb/patches/0004); whatever the server, every page must be exactly what
// MongoDB's semantics give: here computed in memory from the same documents.
const config = testConfig();
let mongo: MongoClient;
let views: Collection<{ _id: string; n: number }>;
const ids: string[] = [];

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
  views = mongo.db(config.mongo.db).collection('views');
  const states = ['dead', 'queued', 'delivered'];
  for (let n = 0; n < 3000; n++) {
    const at = new Date(Date.UTC(2026, 10, 1) + ((n * 7919) % 2_000_000_000)).toISOString();
    ids.push(`${states[n % 3]}|pa-${n % 5}|${at}|dl-${String(n).padStart(6, '0')}`);
  }
  for (let i = 0; i < ids.length; i += 1000)
    await views.insertMany(ids.slice(i, i + 1000).map((_id, j) => ({ _id, n: i + j })));
});

afterAll(async () => {
  await mongo.db(config.mongo.db).dropDatabase();
  await mongo.close();
});

type Bounds = { $gt?: string; $gte?: string; $lt?: string; $lte?: string };
const within = (id: string, b: Bounds) =>
  (b.$gt === undefined || id > b.$gt) &&
  (b.$gte === undefined || id >= b.$gte) &&
  (b.$lt === undefined || id < b.$lt) &&
  (b.$lte === undefined || id <= b.$lte);
const expected = (b: Bounds, dir: 1 | -1, limit: number) =>
  ids
    .filter((id) => within(id, b))
    .sort()
    .sort((a, c) => (a < c ? -dir : a > c ? dir : 0))
    .slice(0, limit);

it.each<[string, Bounds]>([
  ["one partner's dead deliveries", { $gt: 'dead|pa-3|', $lt: 'dead|pa-3|~' }],
  ['a state, from a cursor on', { $gt: 'queued|pa-1|2026-12-01', $lt: 'queued|~' }],
  ['inclusive bounds', { $gte: 'dead|pa-2|2026-11-05', $lte: 'dead|pa-3|2026-11-10' }],
  ['one bound only', { $lt: 'dead|pa-0|2026-11-15' }],
  ['an empty range', { $gt: 'zzz', $lt: 'zzzz' }],
])('serves %s in _id order, both ways, a page at a time', async (_name, bounds) => {
  for (const dir of [1, -1] as const) {
    for (const limit of [1, 20, 5000]) {
      const got = (await views.find({ _id: bounds }).sort({ _id: dir }).limit(limit).toArray()).map((d) => d._id);
      expect(got).toEqual(expected(bounds, dir, limit));
    }
  }
});

it('applies the rest of a filter, a skip and a projection to a range as MongoDB does', async () => {
  const bounds = { $gt: 'delivered|', $lt: 'delivered|~' };
  const withField = await views
    .find({ _id: bounds, n: { $lt: 1000 } })
    .sort({ _id: -1 })
    .limit(10)
    .toArray();
  expect(withField.map((d) => d._id)).toEqual(
    ids
      .filter((id, n) => within(id, bounds) && n < 1000)
      .sort()
      .reverse()
      .slice(0, 10),
  );
  const skipped = await views.find({ _id: bounds }).sort({ _id: 1 }).skip(5).limit(5).project({ _id: 1 }).toArray();
  expect(skipped).toEqual(
    expected(bounds, 1, 10)
      .slice(5)
      .map((_id) => ({ _id })),
  );
  const unsorted = await views.find({ _id: bounds }).toArray();
  expect(unsorted.map((d) => d._id).sort()).toEqual(expected(bounds, 1, 5000));
});

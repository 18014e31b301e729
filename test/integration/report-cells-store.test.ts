import { MongoClient } from 'mongodb';
import { cellDocId, cellField } from '../../src/shared/reports/cell-keys';
import { CellStore, cellsCollection, cellsOf, type CellDoc } from '../../src/shared/reports/cell-store';
import { testConfig } from '../support/test-config';

// The reports' counter documents on the real store: a message's deltas land once whatever chunk it
// comes in again with, and a date range is one `_id` range.
const config = testConfig();
let mongo: MongoClient;
let store: CellStore;

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
  store = new CellStore(cellsCollection(mongo.db(config.mongo.db)));
});

afterAll(async () => {
  await mongo.db(config.mongo.db).dropDatabase();
  await mongo.close();
});

const doc = async (id: string) => mongo.db(config.mongo.db).collection<CellDoc>('report_cells').findOne({ _id: id });

it('adds a chunk once: a replay, or the same messages cut into other chunks, add nothing again', async () => {
  const id = cellDocId('2026-11-20', 'pa-a', 'p0');
  const field = cellField('DE', 'google.ads!');
  const deltas = [10, 11, 12].map((offset) => ({ offset, docId: id, field, delta: { received: 1, accepted: 1, tc3: 1 } }));
  await store.addOnce(deltas, 12);
  await store.addOnce(deltas, 12); // the same chunk again
  await store.addOnce(deltas.slice(1), 12); // cut differently after a crash
  expect(cellsOf((await doc(id))!)).toEqual({ [field]: { received: 3, accepted: 3, tc3: 3 } });
  await store.addOnce([...deltas.slice(2), { offset: 13, docId: id, field, delta: { rtd: 1 } }], 13); // half old, half new
  expect(cellsOf((await doc(id))!)).toEqual({ [field]: { received: 3, accepted: 3, tc3: 3, rtd: 1 } });
  expect((await doc(id))?.o).toBe(13);
});

it('keeps sources apart whatever they hold, and reads a date range by _id', async () => {
  const sources = ['a.b', 'a$b', 'ä b', 'x|y', null];
  for (const [i, source] of sources.entries()) {
    await store.addOnce([{ offset: 100 + i, docId: cellDocId('2026-11-21', 'pa-b', 'p1'), field: cellField(null, source), delta: { received: 1 } }], 100 + i);
  }
  await store.addOnce([{ offset: 1, docId: cellDocId('2026-11-23', 'pa-b', 'p1'), field: cellField('FR', 'x'), delta: { received: 1 } }], 1);
  const days: string[] = [];
  for await (const page of store.days('2026-11-21', '2026-11-22')) days.push(...page.map((d) => d._id));
  expect(days).toEqual([cellDocId('2026-11-21', 'pa-b', 'p1')]);
  expect(Object.keys(cellsOf((await doc(days[0] as string))!)).sort()).toEqual(sources.map((s) => cellField(null, s)).sort());
});

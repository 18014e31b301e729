import { MongoClient } from 'mongodb';
import {
  ALL_CELLS,
  cellDocId,
  cellField,
  dayDocId,
  MAX_CELLS,
  monthDocId,
  parseCellField,
  OTHER_SOURCES,
  type Writer,
} from '../../src/shared/reports/cell-keys';
import {
  CellStore,
  cellsCollection,
  cellsOf,
  type CellDoc,
  type OffsetDelta,
  type WriterChunk,
} from '../../src/shared/reports/cell-store';
import type { ReportLeadDoc } from '../../src/processor/reports/lead-tally';
import { ReportLeadStore } from '../../src/processor/reports/report-lead-store';
import { carryOverFormerLayout } from '../../src/processor/reports/report-rebuild';
import type { LeadDoc } from '../../src/shared/mongo/documents';
import { testConfig } from '../support/test-config';

// The reports' stores on the real store: a message's deltas land once whatever chunk it comes in again
// with, whichever source partitions share the document and whoever else writes it at once (a former
// owner of its partition: the compare-and-set on `v`), a date range is one `_id` range, and a lead's
// state never goes back.
const config = testConfig();
let mongo: MongoClient;
let store: CellStore;
const storeOf = () => new CellStore(cellsCollection(mongo.db(config.mongo.db)));

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
  store = storeOf();
});

afterAll(async () => {
  await mongo.db(config.mongo.db).dropDatabase();
  await mongo.close();
});

const chunk = (writer: Writer, deltas: OffsetDelta[], lastOffset: number): WriterChunk[] => [
  { writer, deltas, lastOffset },
];
const doc = async (id: string) => mongo.db(config.mongo.db).collection<CellDoc>('report_cells').findOne({ _id: id });

it('adds a chunk once to its day and month: a replay, or the same messages cut into other chunks, add nothing again', async () => {
  const field = cellField('DE', 'google.ads!');
  const deltas = [10, 11, 12].map((offset) => ({
    offset,
    day: '2026-11-20',
    partnerId: 'pa-a',
    field,
    delta: { received: 1, accepted: 1, tc3: 1 },
  }));
  await store.addOnce(chunk('p0', deltas, 12));
  await store.addOnce(chunk('p0', deltas, 12)); // the same chunk again
  await store.addOnce(chunk('p0', deltas.slice(1), 12)); // cut differently after a crash
  for (const id of [dayDocId('2026-11-20', 'pa-a'), monthDocId('2026-11-20', 'pa-a')]) {
    expect(cellsOf((await doc(id))!).lead).toEqual({ [field]: { received: 3, accepted: 3, tc3: 3 } });
  }
  await store.addOnce(
    chunk(
      'p0',
      [...deltas.slice(2), { offset: 13, day: '2026-11-20', partnerId: 'pa-a', field, delta: { rtd: 1 } }],
      13,
    ),
  ); // half old, half new
  const day = (await doc(dayDocId('2026-11-20', 'pa-a')))!;
  expect(cellsOf(day).lead).toEqual({ [field]: { received: 3, accepted: 3, tc3: 3, rtd: 1 } });
  expect(day.o).toEqual({ p0: 13 });
  for (const total of [cellDocId('td', '2026-11-20', 'pa-a'), cellDocId('tm', '2026-11', 'pa-a')]) {
    expect(cellsOf((await doc(total))!).lead).toEqual({ [ALL_CELLS]: { received: 3, accepted: 3, tc3: 3, rtd: 1 } });
  }
});

it("lets source partitions share a document, each fenced by its own offset, and two owners at once lose none of each other's counts", async () => {
  const field = cellField('FR', 's');
  const one = (offset: number) => ({ offset, day: '2026-11-22', partnerId: 'pa-w', field, delta: { received: 1 } });
  // Two owners (two stores: a new one and a former one still finishing) at once, twice over (the second time a replay).
  const other = storeOf();
  for (let pass = 0; pass < 2; pass++) {
    await Promise.all([
      store.addOnce(chunk('p0', [one(1), one(2)], 2)),
      store.addOnce(chunk('p1', [one(7)], 7)),
      other.addOnce(chunk('p2', [one(3)], 3)),
      other.addOnce(chunk('i0', [one(5)], 5)),
      other.addOnce(chunk('p3', [one(4)], 4)),
    ]);
  }
  const d = (await doc(dayDocId('2026-11-22', 'pa-w')))!;
  expect(cellsOf(d).lead).toEqual({ [field]: { received: 5 } });
  expect(cellsOf(d).refusal).toEqual({ [field]: { received: 1 } });
  expect(cellsOf((await doc(cellDocId('td', '2026-11-22', 'pa-w')))!)).toEqual({
    lead: { [ALL_CELLS]: { received: 5 } },
    refusal: { [ALL_CELLS]: { received: 1 } },
  });
  expect(d.o).toEqual({ p0: 2, p1: 7, p2: 3, i0: 5, p3: 4 });
});

it('writes the chunks of several writers in one pass, and a replay joined or cut otherwise adds nothing again', async () => {
  const field = cellField('ES', 'm');
  const one = (offset: number, delta: OffsetDelta['delta'] = { received: 1 }) => ({
    offset,
    day: '2026-11-23',
    partnerId: 'pa-m',
    field,
    delta,
  });
  const joined: WriterChunk[] = [
    { writer: 'p0', deltas: [one(1), one(2)], lastOffset: 2 },
    { writer: 'p4', deltas: [one(9, { accepted: 1 })], lastOffset: 9 },
    { writer: 'i2', deltas: [one(5, { received: 1, duplicates: 1 })], lastOffset: 5 },
  ];
  await store.addOnce(joined);
  const v = (await doc(dayDocId('2026-11-23', 'pa-m')))!.v;
  expect(v).toBe(1); // every writer's part in the one insert
  await store.addOnce([joined[2]!, { writer: 'p0', deltas: [one(2)], lastOffset: 2 }]); // the replay, joined otherwise
  await store.addOnce([joined[1]!]);
  const d = (await doc(dayDocId('2026-11-23', 'pa-m')))!;
  expect(d.v).toBe(v); // nothing written again
  expect(cellsOf(d)).toEqual({
    lead: { [field]: { received: 2, accepted: 1 } },
    refusal: { [field]: { received: 1, duplicates: 1 } },
  });
  expect(d.o).toEqual({ p0: 2, p4: 9, i2: 5 });
});

it('stores report_leads states so that `through` only grows, new leads inserted in one batch', async () => {
  const leads = new ReportLeadStore(mongo.db(config.mongo.db), mongo.db(config.mongo.db).collection<LeadDoc>('leads'));
  const state = (id: string, through: number): ReportLeadDoc => ({
    _id: id,
    partner_id: 'pa-s',
    country_code: 'DE',
    source: null,
    created_at: new Date('2026-11-20T10:00:00Z'),
    day: '2026-11-20',
    through,
    accepted_at: null,
    rejected: false,
    contacted_at: null,
    ftd_at: null,
  });
  await leads.states.insertMany([state('le-s2', 5), state('le-s3', 1), state('le-s4', 2)]);
  // le-s1 is new; le-s2 and le-s3 were stored after this chunk read them (a former owner), ahead and behind;
  // le-s4 was read, and a replay brings an older state.
  await leads.save(
    [state('le-s1', 0), state('le-s2', 3), state('le-s3', 3), state('le-s4', 1)],
    new Map([['le-s4', state('le-s4', 0)]]),
  );
  const stored = await leads.byIds(['le-s1', 'le-s2', 'le-s3', 'le-s4']);
  expect(Object.fromEntries([...stored].map(([id, s]) => [id, s.through]))).toEqual({
    'le-s1': 0,
    'le-s2': 5,
    'le-s3': 3,
    'le-s4': 2,
  });
});

it('keeps sources apart whatever they hold, and reads a date range by _id', async () => {
  const sources = ['a.b', 'a$b', 'ä b', 'x|y', null];
  for (const [i, source] of sources.entries()) {
    await store.addOnce(
      chunk(
        'p1',
        [
          {
            offset: 100 + i,
            day: '2026-11-21',
            partnerId: 'pa-b',
            field: cellField(null, source),
            delta: { received: 1 },
          },
        ],
        100 + i,
      ),
    );
  }
  await store.addOnce(
    chunk(
      'p1',
      [{ offset: 1, day: '2026-12-23', partnerId: 'pa-b', field: cellField('FR', 'x'), delta: { received: 1 } }],
      200,
    ),
  );
  const days: string[] = [];
  for await (const page of store.units('d', '2026-11-21', '2026-11-21')) days.push(...page.map((d) => d._id));
  expect(days).toEqual([dayDocId('2026-11-21', 'pa-b')]);
  expect(Object.keys(cellsOf((await doc(days[0] as string))!).lead).sort()).toEqual(
    sources.map((s) => cellField(null, s)).sort(),
  );
  const months: string[] = [];
  for await (const page of store.units('m', '2026-12', '2026-12')) months.push(...page.map((d) => d._id));
  expect(months).toEqual([monthDocId('2026-12-23', 'pa-b')]);
});

it('carries the refusal counts of the former layout over once, even when run again after an interruption', async () => {
  const former = mongo.db(config.mongo.db).collection<{ _id: string; o?: number; c: string }>('report_cells');
  const field = cellField('DE', 'g');
  const old = [
    { _id: '2026-11-20|pa-f|i1', o: 4, c: JSON.stringify({ [field]: { received: 2, duplicates: 2 } }) },
    { _id: '2026-11-21|pa-f|i1', o: 9, c: JSON.stringify({ [field]: { received: 1, validation_errors: 1 } }) },
    { _id: '2026-11-20|pa-f|p0', o: 7, c: JSON.stringify({ [field]: { received: 5, accepted: 5 } }) },
  ];
  await former.insertMany(old);
  expect(await carryOverFormerLayout(store)).toBe(3);
  await former.insertOne(old[0]!); // as if interrupted before the removal
  await carryOverFormerLayout(store);
  expect(await former.countDocuments({ _id: { $in: old.map((o) => o._id) } })).toBe(0);
  expect(cellsOf((await doc(dayDocId('2026-11-20', 'pa-f')))!)).toEqual({
    lead: {},
    refusal: { [field]: { received: 2, duplicates: 2 } },
  });
  expect(cellsOf((await doc(monthDocId('2026-11-20', 'pa-f')))!).refusal).toEqual({
    [field]: { received: 3, duplicates: 2, validation_errors: 1 },
  });
  expect(cellsOf((await doc(cellDocId('tm', '2026-11', 'pa-f')))!).refusal).toEqual({
    [ALL_CELLS]: { received: 3, duplicates: 2, validation_errors: 1 },
  });
});

// The drills lost report counts: two processors' writes to one counter document both passed the `v`
// check (the local store runs an update as read-then-rewrite), and one was lost.
it('loses no count when many writers of several processes write one document at once', async () => {
  const field = cellField('DE', 'race');
  const stores = [storeOf(), storeOf(), storeOf()];
  const writers = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'i0', 'i1'] as Writer[];
  const passes = 25;
  for (let pass = 1; pass <= passes; pass++) {
    await Promise.all(
      writers.map((w, i) =>
        stores[i % stores.length]!.addOnce(
          chunk(w, [{ offset: pass, day: '2026-11-23', partnerId: 'pa-race', field, delta: { received: 1 } }], pass),
        ),
      ),
    );
  }
  const d = (await doc(dayDocId('2026-11-23', 'pa-race')))!;
  expect(cellsOf(d).lead[field]?.received ?? 0).toBe(6 * passes);
  expect(cellsOf(d).refusal[field]?.received ?? 0).toBe(2 * passes);
});

// Every distinct source a partner sends was a cell of its day, block and month documents, until a
// month document passed MongoDB's 16 MB limit and its writes failed (the reports stopped counting).
it("keeps 50,000 distinct sources of one partner's day in small documents, totals exact", async () => {
  const SOURCES = 50_000;
  const CHUNK = 2_500;
  for (let from = 0; from < SOURCES; from += CHUNK) {
    const deltas = Array.from({ length: CHUNK }, (_, i) => ({
      offset: from + i,
      day: '2026-11-24',
      partnerId: 'pa-sources',
      field: cellField('DE', `utm-${from + i}-${'x'.repeat(40)}`),
      delta: { received: 1 },
    }));
    await store.addOnce(chunk('p0', deltas, from + CHUNK - 1));
  }
  for (const id of [dayDocId('2026-11-24', 'pa-sources'), monthDocId('2026-11-24', 'pa-sources')]) {
    const d = (await doc(id))!;
    const { lead } = cellsOf(d);
    expect(Object.keys(lead).length).toBeLessThanOrEqual(MAX_CELLS + 1);
    expect(JSON.stringify(d).length).toBeLessThan(256 * 1024);
    expect(Object.values(lead).reduce((n, c) => n + (c.received ?? 0), 0)).toBe(SOURCES);
    const other = Object.entries(lead).find(([field]) => parseCellField(field).source === OTHER_SOURCES);
    expect(other?.[1].received).toBe(SOURCES - MAX_CELLS);
  }
  const totals = cellsOf((await doc(cellDocId('tm', '2026-11', 'pa-sources')))!).lead[ALL_CELLS];
  expect(totals?.received).toBe(SOURCES);
}, 120_000);

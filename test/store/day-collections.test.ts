import type { Db } from 'mongodb';
import { IntakeDecisionStore } from '../../src/shared/store/intake-decisions';
import { LeadKeyStore } from '../../src/shared/store/lead-keys';
import type { IntakeDecisionDoc } from '../../src/shared/mongo/documents';
import { openStore, type Store } from './support/store';

// Expiry without TTL indexes: what is needed only for a while lives in one collection per day, hour or
// period, created by its first insert, found by listing collection names and dropped whole.
let store: Store;
let db: Db;
beforeAll(async () => {
  store = await openStore();
  db = store.db; // no other test of the run makes these stores' collections
});
afterAll(() => store.close());

const decision = (id: string): IntakeDecisionDoc =>
  ({ _id: id, decided_at: new Date() }) as unknown as IntakeDecisionDoc;

it("creates a day's collection by inserting, reads back over the window and drops the days past it (src/shared/store/intake-decisions.ts)", async () => {
  const decisions = new IntakeDecisionStore(db, 86_400);
  const day1 = new Date('2026-11-20T12:00:00Z');
  const day3 = new Date('2026-11-22T12:00:00Z');
  await decisions.insertNew([decision('pa-1:k1')], day1);
  await decisions.insertNew([decision('pa-1:k2')], new Date('2026-11-21T12:00:00Z'));
  expect(await decisions.insertNew([decision('pa-1:k3'), decision('pa-1:k3')], day3)).toEqual(new Set(['pa-1:k3']));
  expect([...(await decisions.byIds(['pa-1:k1', 'pa-1:k2', 'pa-1:k3'], day3)).keys()].sort()).toEqual([
    'pa-1:k2',
    'pa-1:k3',
  ]);
  expect(await decisions.dropExpired(day3)).toEqual(['intake_decisions_20261120']);
  expect(await decisions.dropExpired(day3)).toEqual([]);
  const names = (await db.listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    .filter((n) => n.startsWith('intake_decisions_'))
    .sort();
  expect(names).toEqual(['intake_decisions_20261121', 'intake_decisions_20261122']);
});

it("pages through one day's ids and deletes by _id within it (src/shared/store/lead-keys.ts)", async () => {
  const keys = new LeadKeyStore(db, { destroy: async () => undefined });
  const at = new Date('2026-10-05T08:00:00Z');
  const docs = Array.from({ length: 1203 }, (_, n) => ({ _id: `le-${n}`, created_at: at, dek_enc: 'x' }));
  await keys.insertNew(docs);
  const seen: string[] = [];
  for (
    let page = await keys.leadIds('20261005', null);
    page.length > 0;
    page = await keys.leadIds('20261005', page[page.length - 1]!)
  )
    seen.push(...page);
  expect(seen).toEqual(docs.map((d) => d._id).sort());
  await keys.destroy([{ _id: 'le-7', created_at: at }]);
  expect((await keys.byLeads(docs.slice(0, 10).map((d) => ({ _id: d._id, created_at: at })))).size).toBe(9);
  expect(await keys.daysBefore(new Date('2026-10-06T00:00:00Z'))).toEqual(['20261005']);
  await keys.dropDay('20261005');
  await keys.dropDay('20261005'); // dropping a day already gone is no error
  expect(await keys.daysBefore(new Date('2026-10-06T00:00:00Z'))).toEqual([]);
});

import { MongoClient } from 'mongodb';
import { LeadStore } from '../../src/shared/store/leads';
import { ListIndex } from '../../src/shared/store/list-index';
import type { LeadDoc, StatusChange } from '../../src/shared/mongo/documents';
import { testConfig } from '../support/test-config';

// One writer per lead, on the local default store too: two owners that read the same version of a
// lead (a zombie after a rebalance and the new owner) and change it concurrently never both
// succeed. The guard is the lead's conditional update on the version it read, atomic on both stores
// (test/store/atomic-updates.test.ts).
const config = testConfig();
let mongo: MongoClient;
let store: LeadStore;
let other: LeadStore;

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
  const db = mongo.db(config.mongo.db);
  store = new LeadStore(db.collection<LeadDoc>('leads'), {
    list: new ListIndex(db.collection('lead_list')),
    isTerminal: () => false,
  });
  other = new LeadStore(db.collection<LeadDoc>('leads'), {
    list: new ListIndex(db.collection('lead_list')),
    isTerminal: () => false,
  });
});

afterAll(async () => {
  await mongo.db(config.mongo.db).dropDatabase();
  await mongo.close();
});

const created = new Date('2026-11-20T10:00:00Z');
const entry = (source: string, to: string): StatusChange => ({
  from: 'assigned',
  to,
  at: new Date(),
  why: source,
  source,
  event: 'lead.status_changed',
  is_depositor: false,
});

function lead(n: number): LeadDoc {
  return {
    _id: `le-${n}`,
    seq: n,
    partner_id: 'pa-1',
    external_id: `x-${n}`,
    idempotency_key: `k-${n}`,
    status: 'assigned',
    is_depositor: false,
    client_id: null,
    agent_id: 'ag-1',
    reason: null,
    history: [],
    phone_enc: 'x',
    phone_hash: 'h',
    email_enc: null,
    email_hash: null,
    personal_enc: 'p',
    risk: { score: 0, reasons: [], ip_country: null },
    created_at: created,
    updated_at: created,
  } as LeadDoc;
}

it('lets exactly one of two owners racing from the same version change the lead', async () => {
  const leads = Array.from({ length: 40 }, (_, i) => lead(1000 + i));
  await mongo.db(config.mongo.db).collection<LeadDoc>('leads').insertMany(leads);
  const now = new Date();
  const results = await Promise.all(
    leads.flatMap((l) => [
      store.apply(
        [{ lead: l, entries: [entry('agent-action:zombie', 'contacted')], set: { status: 'contacted' } }],
        now,
      ),
      other.apply([{ lead: l, entries: [entry('agent-action:owner', 'trash')], set: { status: 'trash' } }], now),
    ]),
  );
  const winners = leads.map((_, i) => [results[2 * i]![0], results[2 * i + 1]![0]].filter((r) => r !== null).length);
  expect(winners.filter((n) => n !== 1)).toEqual([]);
  const stored = await mongo
    .db(config.mongo.db)
    .collection<LeadDoc>('leads')
    .find({ _id: { $in: leads.map((l) => l._id) } })
    .toArray();
  expect(stored.filter((l) => l.history.length !== 1).map((l) => l._id)).toEqual([]);
});

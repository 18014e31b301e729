import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { DeliveryStore, newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import type { DeliveryDoc } from '../../src/shared/mongo/delivery-doc';
import type { LeadEvent } from '../../src/shared/schemas';
import { ListIndex } from '../../src/shared/store/list-index';
import { testConfig } from '../support/test-config';

// Which arriving events are recorded already: each partition's batch asks for its own ids, and the
// asks of the same few milliseconds go to the real MongoDB-wire server as one find.
const config = testConfig();
let mongo: MongoClient;
let db: Db;
const finds: CommandStartedEvent[] = [];

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url, { monitorCommands: true });
  mongo.on('commandStarted', (e) => {
    if (e.commandName === 'find' && e.command.find === 'deliveries') finds.push(e);
  });
  db = mongo.db(`${config.mongo.db}-look-ups`);
});

afterAll(async () => {
  await db.dropDatabase();
  await mongo.close();
});

const eventOf = (n: number): LeadEvent => ({
  event_id: `le-${n}:0`,
  event: 'lead.accepted',
  lead_id: `le-${n}`,
  partner_id: 'pa-1',
  external_lead_id: `ext-${n}`,
  our_status: 'new',
  is_depositor: false,
  occurred_at: '2026-11-27T10:00:00.000Z',
});

it('answers each batch for its own ids, the batches of six partitions in one find', async () => {
  const store = new DeliveryStore(db.collection<DeliveryDoc>('deliveries'), new ListIndex(db.collection('list')));
  const at = new Date('2026-11-27T10:00:01.000Z');
  const docs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => newDeliveryDoc(eventOf(n), 5, at, { heldBy: 'x' }));
  const recorded = docs.filter((_, i) => i % 3 === 0);
  await store.insertNew(recorded);
  finds.length = 0;

  // Partition p asks for two ids: one of them recorded where p is even.
  const batches = [0, 1, 2, 3, 4, 5].map((p) => [docs[2 * p]?._id, docs[2 * p + 1]?._id] as string[]);
  const answers = await Promise.all(batches.map((ids) => store.existing(ids)));
  expect(finds).toHaveLength(1);
  answers.forEach((found, p) => {
    expect([...found].sort()).toEqual(batches[p]?.filter((id) => recorded.some((d) => d._id === id)).sort());
  });
});

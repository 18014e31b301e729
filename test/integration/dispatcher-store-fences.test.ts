import { MongoClient, type Db } from 'mongodb';
import { DeliveryStore, newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import type { DeliveryDoc } from '../../src/shared/mongo/documents';
import type { LeadEvent } from '../../src/shared/schemas';
import { ListIndex } from '../../src/shared/store/list-index';
import { testConfig } from '../support/test-config';

// The store, not the instance's memory, decides whose attempt is recorded: an instance that lost
// its partitions without knowing (frozen, or cut off from Kafka) and records late an attempt the new
// owner already made and recorded is refused, on the real MongoDB-wire server.
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
  event_id: 'le-9:1', event: 'lead.status_changed', lead_id: 'le-9', partner_id: 'pa-1', external_lead_id: 'ext-9',
  our_status: 'contacted', is_depositor: false, occurred_at: '2026-11-27T10:00:00.000Z',
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
  expect(await store.recordAttempt(read, new Date('2026-11-27T10:00:41.000Z'), ok, { state: 'delivered', attemptsMade: 1, attemptsLeft: 0 })).toBe(true);
  expect(await store.recordAttempt(read, new Date('2026-11-27T10:00:22.000Z'), later, {
    state: 'queued', attemptsMade: 1, attemptsLeft: 4, nextAttemptAt: Date.parse('2026-11-27T10:00:23.000Z'), tier: 'retry1m',
  })).toBe(false);

  expect(await deliveries.findOne({ _id: held._id })).toMatchObject({
    state: 'delivered', attempts_made: 1, last_http_status: 200, attempts: [{ attempt: 1, http_status: 200 }],
  });
});

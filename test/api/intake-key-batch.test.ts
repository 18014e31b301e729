import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import type { IntakeKeyDoc } from '../../src/shared/mongo/documents';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { testConfig } from '../support/test-config';

// The ingress stores each request's data key before its command leaves: keys put by concurrent
// requests are gathered into one insert, and each request still learns its own key's outcome.
// On the real MongoDB-wire server, its commands watched.
const config = testConfig();
let mongo: MongoClient;
let db: Db;
const inserts: CommandStartedEvent[] = [];

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url, { monitorCommands: true });
  mongo.on('commandStarted', (e) => {
    if (e.commandName === 'insert' && String(e.command.insert).startsWith('intake_keys_')) inserts.push(e);
  });
  db = mongo.db(config.mongo.db);
});

afterAll(async () => {
  await db.dropDatabase();
  await mongo.close();
});

const keyAt = (at: Date): IntakeKeyDoc => ({ _id: IntakeKeyStore.newRef(at), dek_enc: 'wrapped', created_at: at });

it('stores the keys of 40 concurrent requests in a few inserts, each caller told of its own key', async () => {
  const store = new IntakeKeyStore(db);
  const now = new Date();
  const keys = Array.from({ length: 40 }, () => keyAt(now));
  await Promise.all(keys.map((k) => store.put(k)));
  expect(inserts.length).toBeLessThanOrEqual(2);
  const found = await store.byRefs(keys.map((k) => k._id));
  expect(found.size).toBe(40);

  // A key already stored fails its own put only; keys of two hours go to their two collections.
  inserts.length = 0;
  const again = keys[0] as IntakeKeyDoc;
  const lastHour = keyAt(new Date(now.getTime() - 3_600_000));
  const fresh = keyAt(now);
  const outcomes = await Promise.allSettled([store.put(again), store.put(lastHour), store.put(fresh)]);
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
  expect(inserts).toHaveLength(2);
  expect((await store.byRefs([lastHour._id, fresh._id])).size).toBe(2);
});

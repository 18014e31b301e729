import { randomBytes } from 'node:crypto';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { DataKeyStock, newIntakeKey } from '../../src/ingress/data-key-stock';
import { openDataKey } from '../../src/shared/crypto/data-key';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { createLogger } from '../../src/shared/logger';
import { testConfig } from '../support/test-config';

// The ingress issues a lead's data key only once it is stored: from a stock filled in one insert,
// on the real MongoDB-wire server, its commands watched.
const config = testConfig();
const keyring = new PiiCipher(new Map([['k1', randomBytes(32)]]), 'k1');
const logger = createLogger('silent');
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

beforeEach(() => {
  inserts.length = 0;
});

it('issues 100 keys, 40 of them at once, in two inserts, each stored before it is issued and opened by its stored wrap', async () => {
  const store = new IntakeKeyStore(db);
  const stock = new DataKeyStock(keyring, store, logger);
  const now = new Date();
  const issued = await Promise.all(Array.from({ length: 40 }, () => stock.take(now)));
  expect(inserts).toHaveLength(1);
  for (let i = 0; i < 60; i++) issued.push(await stock.take(now));
  await stock.stop();
  expect(inserts).toHaveLength(2);
  expect(new Set(issued.map((k) => k.ref)).size).toBe(100);

  const stored = await store.byRefs(issued.map((k) => k.ref));
  expect(stored.size).toBe(100);
  for (const key of issued.slice(0, 5)) {
    const sealed = key.cipher.encrypt('+4915112345678');
    expect(openDataKey(keyring, stored.get(key.ref) as string).decrypt(sealed)).toBe('+4915112345678');
  }
});

it('stores keys of two hours in their two collections, and a key stored already fails its call', async () => {
  const store = new IntakeKeyStore(db);
  const now = new Date();
  const fresh = newIntakeKey(keyring, now).doc;
  const lastHour = newIntakeKey(keyring, new Date(now.getTime() - 3_600_000)).doc;
  await store.putAll([fresh, lastHour]);
  expect(inserts).toHaveLength(2);
  expect((await store.byRefs([fresh._id, lastHour._id])).size).toBe(2);
  await expect(store.putAll([fresh])).rejects.toThrow();
});

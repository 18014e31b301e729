import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { apiKeyHash } from '../../src/shared/crypto/tokens';
import type { PartnerDoc, PartnerKeyDoc } from '../../src/shared/mongo/documents';
import { PartnerDirectory } from '../../src/shared/partners/partner-directory';
import { PartnerKeys } from '../../src/shared/partners/partner-keys';
import { servicesOf } from '../support/manager-services';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { randomBytes } from 'node:crypto';

// A partner is found by its API key with reads by `_id` only: a made-up key (an attacker guessing)
// costs one point read, never a scan of the partners' previous keys; a rotation keeps exactly the
// hashes that authenticate. On the real MongoDB-wire server, its commands watched.
const config = testConfig();
let mongo: MongoClient;
let db: Db;
const commands: CommandStartedEvent[] = [];
let app: TestApp;

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url, { monitorCommands: true });
  mongo.on('commandStarted', (e) => commands.push(e));
  db = mongo.db(config.mongo.db);
  app = await startTestApp({ ROLE: 'ingress', MONGO_DB: config.mongo.db });
});

afterAll(async () => {
  await app?.destroy();
  await mongo.close();
});

it('looks a made-up key up with one read by _id, and a real one with two', async () => {
  const { partner, secrets } = await servicesOf(app.runtime).partners.create({ name: 'Point read' });
  const directory = new PartnerDirectory(
    db.collection<PartnerDoc>('partners'),
    new PartnerKeys(db.collection<PartnerKeyDoc>('partner_keys')),
    new PiiCipher(new Map([['k', randomBytes(32)]]), 'k'),
    'unused',
  );
  commands.length = 0;
  expect(await directory.byApiKey('lk_made-up')).toBeNull();
  const finds = () =>
    commands
      .filter((c) => c.commandName === 'find')
      .map((c) => ({ collection: c.command.find, filter: c.command.filter }));
  expect(finds()).toEqual([{ collection: 'partner_keys', filter: { _id: apiKeyHash('lk_made-up') } }]);
  commands.length = 0;
  expect((await directory.byApiKey(secrets.api_key))?._id).toBe(partner.id);
  expect(finds()).toEqual([
    { collection: 'partner_keys', filter: { _id: apiKeyHash(secrets.api_key) } },
    { collection: 'partners', filter: { _id: partner.id } },
  ]);
});

it('keeps the hashes that authenticate through rotations: the current key, and the replaced one while its grace lasts', async () => {
  const service = servicesOf(app.runtime).partners;
  const { partner, secrets } = await service.create({ name: 'Rotating' });
  const hashes = async () =>
    (await db.collection<PartnerKeyDoc>('partner_keys').find({ partner_id: partner.id }).toArray())
      .map((k) => k._id)
      .sort();
  const graced = await service.rotate(partner.id, [], 3600);
  expect(await hashes()).toEqual([apiKeyHash(secrets.api_key), apiKeyHash(graced!.api_key)].sort());
  const next = await service.rotate(partner.id); // ends the grace, and no new one
  expect(await hashes()).toEqual([apiKeyHash(next!.api_key)]);
});

import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { BlockStore } from '../../src/dispatcher/lead-owner/block-store';
import { DeliveryStore, newDeliveryDoc } from '../../src/dispatcher/delivery-store';
import { IdAllocator } from '../../src/processor/id-allocator';
import { systemActor, writeAudit } from '../../src/shared/audit';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { apiKeyHash } from '../../src/shared/crypto/tokens';
import type { Clock } from '../../src/shared/clock';
import type {
  AgentActivityDoc,
  AgentDoc,
  AuditDoc,
  DeliveryBlockDoc,
  DeliveryDoc,
  IdBlockDoc,
  PartnerDoc,
  PartnerKeyDoc,
} from '../../src/shared/mongo/documents';
import { AgentService } from '../../src/manager/agent-service';
import { PartnerService } from '../../src/manager/partner-service';
import { createRedis, type Redis } from '../../src/shared/redis/client';
import { PartnerDirectory } from '../../src/shared/partners/partner-directory';
import { PartnerKeys } from '../../src/shared/partners/partner-keys';
import type { LeadEvent } from '../../src/shared/schemas';
import { ListIndex } from '../../src/shared/store/list-index';
import { testConfig } from '../support/test-config';

// The stores take their time from the clock they are given, not from the machine's: what they
// write says so, on the real MongoDB-wire server.
const config = testConfig();
const AT = new Date('2031-02-03T04:05:06.789Z');
const fixed: Clock = { now: () => new Date(AT) };
let mongo: MongoClient;
let db: Db;
let redis: Redis;

beforeAll(async () => {
  mongo = await MongoClient.connect(config.mongo.url);
  db = mongo.db(config.mongo.db);
  redis = createRedis(config, 'store-clock-test');
});

afterAll(async () => {
  await db.dropDatabase();
  await mongo.close();
  redis.disconnect();
});

const event: LeadEvent = {
  event_id: 'le-7:0',
  event: 'lead.accepted',
  lead_id: 'le-7',
  partner_id: 'pa-1',
  external_lead_id: 'ext-7',
  our_status: 'new',
  is_depositor: false,
  occurred_at: '2026-11-24T10:00:00.000Z',
};

it("writes a delivery record's updated_at from the clock", async () => {
  const deliveries = db.collection<DeliveryDoc>('deliveries');
  const store = new DeliveryStore(deliveries, new ListIndex(db.collection('delivery_list')), fixed);
  const created = new Date('2026-11-24T10:00:01.000Z');
  const doc = newDeliveryDoc(event, 5, created, { heldBy: 'dl-other' });
  await store.insertNew([doc]);
  await store.awaitRetry(doc, new Date('2031-02-03T05:00:00.000Z'));
  expect(await deliveries.findOne({ _id: doc._id })).toMatchObject({ created_at: created, updated_at: AT });
});

it("writes a lead block's updated_at, an id block's taken_at and an audit entry's time from the clock", async () => {
  await new BlockStore(
    db.collection<DeliveryBlockDoc>('delivery_blocks'),
    db.collection('delivery_block_epochs'),
    fixed,
  ).save({ endpoint: 'pa-1', leadId: 'le-7' }, 0, { blocker: 'dl-1', held: [] }, 1);
  expect(await db.collection<DeliveryBlockDoc>('delivery_blocks').findOne({ _id: 'pa-1:le-7' })).toMatchObject({
    updated_at: AT,
  });

  await new IdAllocator(db.collection<IdBlockDoc>('id_blocks'), 'lead', 10, fixed).allocate();
  expect(await db.collection<IdBlockDoc>('id_blocks').findOne({ sequence: 'lead' })).toMatchObject({ taken_at: AT });

  await writeAudit(
    { audit: db.collection<AuditDoc>('audit'), auditList: db.collection('audit_list') },
    systemActor('manager'),
    'agent.create',
    {},
    fixed,
  );
  expect(await db.collection<AuditDoc>('audit').findOne({ actor: 'manager' })).toMatchObject({ at: AT });
});

it("ends a rotated key's grace when the directory's clock says so", async () => {
  let now = new Date('2031-02-03T04:00:00.000Z');
  const until = new Date('2031-02-03T05:00:00.000Z');
  const partners = db.collection<PartnerDoc>('partners');
  await partners.insertOne({
    _id: 'pa-9',
    api_key_hash: apiKeyHash('new-key'),
    previous_secrets: { api_key_hash: apiKeyHash('old-key'), hmac_secret_enc: '', callback_secret_enc: '', until },
  } as unknown as PartnerDoc);
  const keys = new PartnerKeys(db.collection<PartnerKeyDoc>('partner_keys'));
  await keys.backfill(partners, now);
  const directory = new PartnerDirectory(
    partners,
    keys,
    new PiiCipher(new Map([['k', randomBytes(32)]]), 'k'),
    'unused',
    { now: () => now },
  );
  expect((await directory.byApiKey('old-key'))?._id).toBe('pa-9');
  now = until;
  expect(await directory.byApiKey('old-key')).toBeNull();
  expect((await directory.byApiKey('new-key'))?._id).toBe('pa-9');
});

it("writes an agent's and a partner's created_at and updated_at, and a rotation's time, from the clock", async () => {
  const agents = new AgentService(
    db.collection<AgentDoc>('agents'),
    db.collection<AgentActivityDoc>('agent_activity'),
    async () => undefined,
    fixed,
  );
  const agent = await agents.create({ name: 'Clocked agent' });
  await agents.update(agent.id, { name: 'Clocked again' });
  expect(await db.collection<AgentDoc>('agents').findOne({ _id: agent.id })).toMatchObject({
    created_at: AT,
    updated_at: AT,
  });

  const partners = new PartnerService({
    partners: db.collection<PartnerDoc>('partners'),
    keys: new PartnerKeys(db.collection<PartnerKeyDoc>('partner_keys')),
    cipher: new PiiCipher(new Map([['k', randomBytes(32)]]), 'k'),
    directory: { announceChange: async () => undefined },
    redis,
    clock: fixed,
  });
  const { partner } = await partners.create({ name: 'Clocked partner' });
  expect((await partners.rotate(partner.id))?.key_rotated_at).toEqual(AT);
  expect(await db.collection<PartnerDoc>('partners').findOne({ _id: partner.id })).toMatchObject({
    created_at: AT,
    updated_at: AT,
    key_rotated_at: AT,
  });
});

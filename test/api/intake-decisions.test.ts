import { createHash, randomUUID } from 'node:crypto';
import pino from 'pino';
import { startApp, type App } from '../../src/app';
import { REDACT_PATHS } from '../../src/shared/logger';
import { PartnerClient, type PartnerCredentials } from '../support/partner-client';
import { storedLeadCipher } from '../support/lead-keys';
import { dropTestData } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { TopicProbe } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// Every row of the spec 4.1 table end to end, with the real processor deciding, and the status
// lookup of spec 4.2 on the leads it stored. The log is captured at debug level to prove that no
// phone, email or secret reaches it.
const config = testConfig({ ROLE: 'ingress,processor', BLOCKED_COUNTRIES: 'KP' });
const logLines: string[] = [];
const STATUS_MAPPING = { new: 'NEW_LEAD', assigned: 'WORKING' };
let app: App;
let commands: TopicProbe<Buffer>;
let creds: PartnerCredentials;
let client: PartnerClient;
let other: PartnerClient;
let seq = 0;
const phones: string[] = [];
const phone = () => {
  phones.push(`+4479111${String(20000 + ++seq)}`);
  return phones[phones.length - 1] as string;
};

beforeAll(async () => {
  const logger = pino(
    { level: 'debug', redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    { write: (line: string) => void logLines.push(line) },
  );
  app = await startApp(config, logger);
  commands = await new TopicProbe<Buffer>(app.runtime, 'intakeCommands', true).start();
  const partner = await servicesOf(app.runtime).partners.create({
    name: 'Decisions',
    status_mapping: STATUS_MAPPING,
    rate_limits: { intake_per_minute: 1000 },
  });
  creds = partner.secrets;
  client = new PartnerClient(app.url, creds);
  other = new PartnerClient(app.url, (await servicesOf(app.runtime).partners.create({ name: 'Someone else' })).secrets);
});

afterAll(async () => {
  await commands?.stop();
  await app?.stop();
  await dropTestData(config);
});

describe('POST /api/v1/inbound/leads', () => {
  it('200 accepted with id, reason null and duration_ms; stores no phone or email in clear', async () => {
    const p = phone();
    const res = await client.submitLead({
      phone: p,
      email: 'Clear@Text.example',
      country: 'DE',
      source: 'fb',
      external_id: 'acc-1',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^le-\d+$/),
      status: 'accepted',
      reason: null,
      duration_ms: expect.any(Number),
    });
    const stored = await app.runtime.mongo.collections.leads.findOne({ _id: res.body.id as string });
    expect(stored).toMatchObject({ external_id: 'acc-1', country_code: 'DE', status: 'new' });
    const everything = JSON.stringify(await app.runtime.mongo.db.collection('leads').find().toArray());
    expect(everything).not.toContain(p.slice(1));
    expect(everything.toLowerCase()).not.toContain('clear@text.example');
  });

  it('200 with replay: true for the same Idempotency-Key, nothing processed again', async () => {
    const key = randomUUID();
    const body = { phone: phone() };
    const first = await client.submitLead(body, { idempotencyKey: key });
    const before = await app.runtime.mongo.collections.leads.countDocuments();
    const again = await client.submitLead(body, { idempotencyKey: key });
    expect(again).toMatchObject({
      status: 200,
      body: { id: first.body.id, status: 'accepted', reason: null, replay: true },
    });
    expect(again.body).not.toHaveProperty('duration_ms');
    expect(await app.runtime.mongo.collections.leads.countDocuments()).toBe(before);
  });

  it('409 duplicate with the existing lead id and matched_lead:<n>, by phone and by email', async () => {
    const p = phone();
    const first = await client.submitLead({ phone: p, email: 'twin@example.com' });
    const n = (first.body.id as string).slice(3);
    expect(await client.submitLead({ phone: p })).toMatchObject({
      status: 409,
      body: { id: first.body.id, status: 'duplicate', reason: `matched_lead:${n}` },
    });
    expect(await other.submitLead({ phone: phone(), email: 'TWIN@example.com' })).toMatchObject({
      status: 409,
      body: { id: first.body.id, status: 'duplicate' },
    });
  });

  it('422 rejected with id null and country_blocked:<cc>, the code derived from a country name', async () => {
    const res = await client.submitLead({ phone: phone(), country: 'North Korea' });
    expect(res).toMatchObject({ status: 422, body: { id: null, status: 'rejected', reason: 'country_blocked:KP' } });
  });

  it('422 validation_error with id null and missing_required:<field>', async () => {
    expect(await client.submitLead({ email: 'a@b.de' })).toMatchObject({
      status: 422,
      body: { id: null, status: 'validation_error', reason: 'missing_required:phone' },
    });
  });

  it("accepts a lead in the partner's own layout through its field_mapping", async () => {
    const nested = await servicesOf(app.runtime).partners.create({
      name: 'Nested',
      field_mapping: { phone: 'contact.phone', first_name: 'profile.firstName', external_id: 'ref' },
    });
    const res = await new PartnerClient(app.url, nested.secrets).submitLead({
      ref: 'n-1',
      contact: { phone: phone() },
      profile: { firstName: 'Bo' },
    });
    expect(res).toMatchObject({ status: 200, body: { status: 'accepted' } });
    const stored = await app.runtime.mongo.collections.leads.findOne({ _id: res.body.id as string });
    expect(stored).toMatchObject({ external_id: 'n-1' });
    const cipher = await storedLeadCipher(app.runtime, stored!);
    expect(JSON.parse(cipher!.decrypt(stored!.personal_enc!))).toMatchObject({ first_name: 'Bo', full_name: 'Bo' });
  });
});

describe('personal data beyond phone and email', () => {
  const PERSONAL = {
    first_name: 'Zebulon',
    last_name: 'Quixote',
    full_name: 'Zebulon Q. Quixote',
    ip: '192.0.2.77',
    user_agent: 'Mozilla/5.0 (UniqueAgent/42)',
    metadata: { 'favourite.colour': 'ultramarine', $pet: 'axolotl' },
  };
  const PLAINTEXTS = ['Zebulon', 'Quixote', '192.0.2.77', 'UniqueAgent', 'ultramarine', 'axolotl'];
  const sha256 = (raw: string) => createHash('sha256').update(raw).digest('hex');

  it('never travels or rests in clear: only ciphertext on the intake topic and in the stored lead, no unkeyed body hash', async () => {
    const key = randomUUID();
    const raw = JSON.stringify({ phone: phone(), country: 'DE', source: 'fb', external_id: 'personal-1', ...PERSONAL });
    const res = await client.submitLead(raw, { idempotencyKey: key });
    expect(res).toMatchObject({ status: 200, body: { status: 'accepted' } });

    await commands.waitFor(() => commands.values().some((v) => v.includes(key)));
    const onTheWire = commands
      .values()
      .find((v) => v.includes(key))!
      .toString('utf8');
    const stored = await app.runtime.mongo.db.collection('leads').findOne({ _id: res.body.id as never });
    const decision = JSON.stringify(
      await app.runtime.mongo.db
        .listCollections()
        .toArray()
        .then((cs) =>
          Promise.all(
            cs
              .filter((c) => c.name.startsWith('intake_decisions'))
              .map((c) => app.runtime.mongo.db.collection(c.name).find().toArray()),
          ),
        ),
    );
    const redisRecord = await app.runtime.redis.hgetall(`idem:${stored!.partner_id as string}:${key}`);
    expect(redisRecord.body_hash).toMatch(/^[0-9a-f]{64}$/);
    for (const text of [onTheWire, JSON.stringify(stored)]) {
      for (const clear of PLAINTEXTS) expect(text).not.toContain(clear);
      expect(text).toContain('personal-1'); // routing and reporting fields stay readable
      expect(text).toContain('"fb"');
    }
    for (const text of [onTheWire, decision, JSON.stringify(redisRecord)]) expect(text).not.toContain(sha256(raw));
    const cipher = await storedLeadCipher(app.runtime, stored as never);
    expect(JSON.parse(cipher!.decrypt(stored!.personal_enc as string))).toEqual(PERSONAL);
  });

  it('still decides on the encrypted IP: a lead from a blocked range is rejected', async () => {
    const blocking = await servicesOf(app.runtime).partners.create({
      name: 'Blocks IPs',
      blocked_ip_ranges: ['192.0.2.0/24'],
    });
    const blocked = new PartnerClient(app.url, blocking.secrets);
    expect(await blocked.submitLead({ phone: phone(), ...PERSONAL })).toMatchObject({
      status: 422,
      body: { id: null, status: 'rejected', reason: 'ip_blocked' },
    });
    expect(await blocked.submitLead({ phone: phone(), ...PERSONAL, ip: '203.0.113.5' })).toMatchObject({
      status: 200,
      body: { status: 'accepted' },
    });
  });
});

describe('GET /api/v1/inbound/leads/{externalId}/status', () => {
  let leadId: string;

  beforeAll(async () => {
    const res = await client.submitLead({ phone: phone(), external_id: 'status-1' });
    leadId = res.body.id as string;
  });

  it("returns the calling partner's lead with its mapped status and nothing more", async () => {
    const res = await client.leadStatus('status-1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: leadId,
      external_id: 'status-1',
      status: expect.any(String),
      our_status: expect.any(String),
      is_depositor: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(res.body.status).toBe(STATUS_MAPPING[res.body.our_status as keyof typeof STATUS_MAPPING]);
    expect(JSON.stringify(res.body)).not.toMatch(/amount|currency|phone|email/);
  });

  it("404 for another partner's lead and for an unknown id", async () => {
    expect(await other.leadStatus('status-1')).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await client.leadStatus('no-such-lead')).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('finds a lead by the Idempotency-Key when it was sent without external_id', async () => {
    const key = `order-${randomUUID()}`;
    const res = await client.submitLead({ phone: phone() }, { idempotencyKey: key });
    expect(await client.leadStatus(key)).toMatchObject({ status: 200, body: { id: res.body.id, external_id: key } });
  });
});

describe('the log', () => {
  it('holds request lines but no phone, email, key, secret or signature', () => {
    const log = logLines.join('');
    expect(log).toContain('"endpoint":"intake"');
    for (const p of phones) expect(log).not.toContain(p.slice(1));
    expect(log.toLowerCase()).not.toMatch(
      /twin@example|clear@text|a@b\.de|zebulon|quixote|uniqueagent|ultramarine|axolotl/,
    );
    expect(log).not.toContain(creds.api_key);
    expect(log).not.toContain(creds.hmac_secret);
    expect(log).not.toContain('sha256=');
  });
});

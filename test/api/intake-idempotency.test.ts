import { randomUUID } from 'node:crypto';
import { Admissions } from '../../src/ingress/admission';
import { keyInline, sealedWithNewKey } from '../support/intake-commands';
import { requestBodyHash } from '../../src/shared/crypto/lookup-hash';
import type { IntakeCommand } from '../../src/shared/schemas';
import { IntakeDecisionStore } from '../../src/shared/store/intake-decisions';
import { PartnerClient, type PartnerCredentials } from '../support/partner-client';
import { ScriptedProcessor } from '../support/scripted-processor';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { servicesOf } from '../support/manager-services';

// Spec 5.2 and the request/reply path, with a scripted stand-in for the processor on the real
// topics so each test controls the decision and its timing. The decision comes from `source`.
const REPLY_TIMEOUT_MS = 3000; // generous: files run in parallel on one broker
let app: TestApp;
let second: TestApp;
let processor: ScriptedProcessor;
let creds: PartnerCredentials;
let partnerId: string;
let client: PartnerClient;
let seq = 0;

beforeAll(async () => {
  const config = testConfig({ ROLE: 'ingress', INTAKE_REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS) });
  app = await startTestApp({}, config);
  second = await startTestApp({}, config);
  processor = await new ScriptedProcessor(app.runtime, (cmd) => {
    const n = 100 + ++seq;
    switch (cmd.lead.source) {
      case 'dup':
        return { outcome: 'duplicate', lead_id: 'le-7', reason: 'matched_lead:7' };
      case 'blocked':
        return { outcome: 'rejected', lead_id: `le-${n}`, reason: 'country_blocked:KP' };
      case 'slow':
        return { outcome: 'accepted', lead_id: `le-${n}`, reason: null, delayMs: REPLY_TIMEOUT_MS + 800 };
      case 'busy':
        return { outcome: 'accepted', lead_id: `le-${n}`, reason: null, delayMs: 600 };
      case 'poison':
        return { outcome: 'failed', lead_id: null, reason: 'processing_failed' };
      default:
        return { outcome: 'accepted', lead_id: `le-${n}`, reason: null };
    }
  }).start();
  const partner = await servicesOf(app.runtime).partners.create({
    name: 'Idem',
    rate_limits: { intake_per_minute: 1000 },
  });
  creds = partner.secrets;
  partnerId = partner.partner.id;
  client = new PartnerClient(app.url, creds);
});

afterAll(async () => {
  await processor?.stop();
  await second?.stop();
  await app?.destroy();
});

const lead = (source?: string) => ({ phone: `+4915112${String(345000 + ++seq)}`, ...(source ? { source } : {}) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const decisions = () => new IntakeDecisionStore(app.runtime.mongo.db, app.config.intake.idempotencyTtlS);

describe('decisions over Kafka -> HTTP (spec 4.1)', () => {
  it('accepted: 200 with id, reason null and duration_ms', async () => {
    const res = await client.submitLead(lead());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^le-\d+$/),
      status: 'accepted',
      reason: null,
      duration_ms: expect.any(Number),
    });
    expect(Number.isInteger(res.body.duration_ms)).toBe(true);
  });

  it('duplicate: 409 with the existing lead and matched_lead', async () => {
    expect(await client.submitLead(lead('dup'))).toMatchObject({
      status: 409,
      body: { id: 'le-7', status: 'duplicate', reason: 'matched_lead:7' },
    });
  });

  it('rejected: 422 with id null and the rule reason', async () => {
    const res = await client.submitLead(lead('blocked'));
    expect(res).toMatchObject({ status: 422, body: { id: null, status: 'rejected', reason: 'country_blocked:KP' } });
    expect(res.body).not.toHaveProperty('duration_ms');
  });
});

describe('replay', () => {
  it.each([
    ['accepted', undefined, 200],
    ['duplicate', 'dup', 409],
    ['rejected', 'blocked', 422],
  ])(
    'a repeated key returns the stored %s answer with replay: true and sends nothing again',
    async (_what, source, http) => {
      const key = randomUUID();
      const body = lead(source);
      const first = await client.submitLead(body, { idempotencyKey: key });
      const again = await client.submitLead(body, { idempotencyKey: key });
      expect(first.status).toBe(http);
      const { duration_ms: _t, ...stored } = first.body;
      expect(again).toMatchObject({ status: http, body: { ...stored, replay: true } });
      expect(again.body).not.toHaveProperty('duration_ms');
      expect(processor.commandsFor(key)).toHaveLength(1);
    },
  );

  it('replays a validation error too, and from another instance', async () => {
    const key = randomUUID();
    const first = await client.submitLead({ phone: 'nope' }, { idempotencyKey: key });
    expect(first).toMatchObject({ status: 422, body: { status: 'validation_error', reason: 'invalid_format:phone' } });
    const again = await new PartnerClient(second.url, creds).submitLead({ phone: 'nope' }, { idempotencyKey: key });
    expect(again).toMatchObject({
      status: 422,
      body: { id: null, status: 'validation_error', reason: 'invalid_format:phone', replay: true },
    });
  });

  it('keys are per partner: another partner may use the same key', async () => {
    const key = randomUUID();
    const other = await servicesOf(app.runtime).partners.create({ name: 'Other' });
    expect((await client.submitLead(lead(), { idempotencyKey: key })).status).toBe(200);
    const res = await new PartnerClient(app.url, other.secrets).submitLead(lead(), { idempotencyKey: key });
    expect(res.status).toBe(200);
    expect(res.body.replay).toBeUndefined();
  });
});

describe('same key, different body', () => {
  it('is refused with 422 idempotency_key_reused after the first answer', async () => {
    const key = randomUUID();
    await client.submitLead(lead(), { idempotencyKey: key });
    const res = await client.submitLead(lead(), { idempotencyKey: key });
    expect(res).toMatchObject({
      status: 422,
      body: { error: 'idempotency_key_reused', message: expect.stringContaining('new key') },
    });
    expect(processor.commandsFor(key)).toHaveLength(1);
  });

  it('is refused while the first is still being processed', async () => {
    const key = randomUUID();
    const first = client.submitLead(lead('busy'), { idempotencyKey: key });
    await sleep(150);
    expect(await client.submitLead(lead('busy'), { idempotencyKey: key })).toMatchObject({
      status: 422,
      body: { error: 'idempotency_key_reused' },
    });
    expect((await first).status).toBe(200);
  });
});

describe('concurrent requests with one key', () => {
  it('never both process: the second gets a retryable 409 with Retry-After, then the stored answer', async () => {
    const key = randomUUID();
    const body = lead('busy');
    const results = await Promise.all(
      [app, second].map((on) => new PartnerClient(on.url, creds).submitLead(body, { idempotencyKey: key })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    const inUse = results.find((r) => r.status === 409)!;
    expect(inUse.body).toEqual({ error: 'idempotency_key_in_use', message: expect.any(String) });
    expect(inUse.headers.get('retry-after')).toBe('1');
    const winner = results.find((r) => r.status === 200)!;
    expect(await client.submitLead(body, { idempotencyKey: key })).toMatchObject({
      status: 200,
      body: { id: winner.body.id, replay: true },
    });
    expect(processor.commandsFor(key)).toHaveLength(1);
  });
});

describe('no decision in time', () => {
  it('answers 503 service_unavailable at once when the processor failed on the command, and stores nothing', async () => {
    const key = randomUUID();
    const body = lead('poison');
    const first = await client.submitLead(body, { idempotencyKey: key });
    expect(first).toMatchObject({ status: 503, body: { error: 'service_unavailable' } });
    expect(Number(first.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The key was released: the retry is processed again (not a replay, not 409 in use).
    expect(await client.submitLead(body, { idempotencyKey: key })).toMatchObject({
      status: 503,
      body: { error: 'service_unavailable' },
    });
    expect(processor.commandsFor(key)).toHaveLength(2);
    expect(await decisions().byId(`${partnerId}:${key}`, new Date())).toBeNull();
  });

  it('answers 503 decision_pending; the retry with the same key gets the real outcome', async () => {
    const key = randomUUID();
    const body = lead('slow');
    const pending = await client.submitLead(body, { idempotencyKey: key });
    expect(pending).toMatchObject({ status: 503, body: { error: 'decision_pending' } });
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await sleep(1200); // the scripted processor decides 0.8 s after the timeout
    const retry = await client.submitLead(body, { idempotencyKey: key });
    expect(retry).toMatchObject({
      status: 200,
      body: { id: expect.stringMatching(/^le-\d+$/), status: 'accepted', reason: null, replay: true },
    });
    const stored = await decisions().byId(`${partnerId}:${key}`, new Date());
    expect(retry.body.id).toBe(stored?.lead_id);
  });

  it('a retry finds the outcome even when the instance that took the first request died after sending it', async () => {
    const key = randomUUID();
    const raw = JSON.stringify(lead());
    const bodyHash = requestBodyHash(app.config.crypto.hashKey, Buffer.from(raw));
    // What the dead instance left behind: its claim on the key and its command on the topic.
    const admissions = new Admissions(app.runtime.redis, 'ingress-dead', app.config.intake);
    const partner = await app.runtime.partners.byId(partnerId);
    expect(await admissions.admit('127.0.0.1', partner!, 'intake', { key, bodyHash })).toEqual({
      kind: 'admitted',
      claim: { kind: 'claimed' },
    });
    const phone = (JSON.parse(raw) as { phone: string }).phone;
    const sealed = sealedWithNewKey(
      { external_id: key, ip: '127.0.0.1', phone },
      app.runtime.cipher,
      app.config.crypto.hashKey,
      new Date(),
    );
    const cmd: IntakeCommand = {
      correlation_id: randomUUID(),
      reply_to: 'ingress-dead',
      partner_id: partnerId,
      idempotency_key: key,
      body_hash: bodyHash,
      received_at: new Date().toISOString(),
      lead: keyInline(sealed),
    };
    await app.runtime.producer.send({
      topic: app.runtime.topics.intakeCommands,
      messages: [{ key: sealed.bucket, value: await app.runtime.codec.encode('intakeCommands', cmd) }],
    });
    expect(await client.submitLead(raw, { idempotencyKey: key })).toMatchObject({
      status: 409,
      body: { error: 'idempotency_key_in_use' },
    });
    await sleep(REPLY_TIMEOUT_MS + 200);
    const retry = await new PartnerClient(second.url, creds).submitLead(raw, { idempotencyKey: key });
    const stored = await decisions().byId(`${partnerId}:${key}`, new Date());
    expect(retry).toMatchObject({ status: 200, body: { id: stored?.lead_id, status: 'accepted', replay: true } });
  });
});

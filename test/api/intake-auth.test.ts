import { sign } from '../../src/shared/crypto/signature';
import { PAST_AUTHENTICATION, PartnerClient, type PartnerCredentials } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { servicesOf } from '../support/manager-services';

// Spec 5.1 over a real socket. A body that fails validation (no phone) proves a request got past
// authentication without needing the processor: 422 validation_error instead of 401/403.
// 401: we cannot tell who you are. 403: we know you, the request is not acceptable.
let app: TestApp;
let second: TestApp; // another ingress instance on the same Redis and MongoDB
let creds: PartnerCredentials;
let partnerId: string;
let client: PartnerClient;

beforeAll(async () => {
  const config = testConfig({ ROLE: 'ingress' });
  app = await startTestApp({}, config);
  second = await startTestApp({}, config);
  const created = await servicesOf(app.runtime).partners.create({ name: 'Auth Partner' });
  creds = created.secrets;
  partnerId = created.partner.id;
  client = new PartnerClient(app.url, creds);
});

afterAll(async () => {
  await second?.stop();
  await app?.destroy();
});

const now = () => Math.floor(Date.now() / 1000);

function expectError(res: { status: number; body: Record<string, unknown> }, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error, message: expect.any(String) });
  expect(JSON.stringify(res.body)).not.toContain(partnerId);
}

describe('a correctly signed request', () => {
  it('passes with the sha256= prefix, without it, and with upper-case hex', async () => {
    const raw = JSON.stringify({ source: 'x' });
    const hex = sign(creds.hmac_secret, raw).slice('sha256='.length);
    expect(await client.submitLead(raw)).toMatchObject(PAST_AUTHENTICATION);
    expect(await client.submitLead(raw, { signature: hex })).toMatchObject(PAST_AUTHENTICATION);
    expect(await client.submitLead(raw, { signature: `sha256=${hex.toUpperCase()}` })).toMatchObject(
      PAST_AUTHENTICATION,
    );
  });

  it('passes with a timestamp inside the 300 s tolerance, either side', async () => {
    expect(await client.submitLead({}, { timestamp: now() - 290 })).toMatchObject(PAST_AUTHENTICATION);
    expect(await client.submitLead({}, { timestamp: now() + 290 })).toMatchObject(PAST_AUTHENTICATION);
  });
});

describe('401: who are you?', () => {
  it('missing Authorization -> missing_api_key', async () => {
    expectError(await client.submitLead({}, { apiKey: null }), 401, 'missing_api_key');
  });

  it('not a Bearer token -> missing_api_key', async () => {
    expectError(
      await client.submitLead({}, { headers: { authorization: `Basic ${creds.api_key}` } }),
      401,
      'missing_api_key',
    );
    expectError(await client.submitLead({}, { headers: { authorization: 'Bearer' } }), 401, 'missing_api_key');
  });

  it('unknown key -> invalid_api_key', async () => {
    expectError(await client.submitLead({}, { apiKey: 'lk_not-a-key' }), 401, 'invalid_api_key');
  });

  it('is answered before the body is read: an oversized body from a stranger still gets 401', async () => {
    const res = await client.submitLead({ metadata: { pad: 'x'.repeat(200_000) } }, { apiKey: 'lk_stranger' });
    expectError(res, 401, 'invalid_api_key');
  });

  it('a rotated key stops working at once, on every instance', async () => {
    const partner = await servicesOf(app.runtime).partners.create({ name: 'Rotating' });
    const onFirst = new PartnerClient(app.url, partner.secrets);
    const onSecond = new PartnerClient(second.url, partner.secrets);
    expect(await onFirst.submitLead({})).toMatchObject(PAST_AUTHENTICATION);
    expect(await onSecond.submitLead({})).toMatchObject(PAST_AUTHENTICATION); // now cached on the second instance too
    const issued = await servicesOf(app.runtime).partners.rotate(partner.partner.id);
    expectError(await onSecond.submitLead({}), 401, 'invalid_api_key');
    expectError(await onFirst.submitLead({}), 401, 'invalid_api_key');
    const rotated = new PartnerClient(second.url, { ...partner.secrets, api_key: issued!.api_key! });
    expect(await rotated.submitLead({})).toMatchObject(PAST_AUTHENTICATION);
  });
});

describe('403: we know you, but not this request', () => {
  it('disabled partner -> partner_disabled', async () => {
    const partner = await servicesOf(app.runtime).partners.create({ name: 'Disabled' });
    await servicesOf(app.runtime).partners.update(partner.partner.id, { disabled: true });
    expectError(await new PartnerClient(app.url, partner.secrets).submitLead({}), 403, 'partner_disabled');
  });

  it.each<[string, () => string | number | null]>([
    ['missing', () => null],
    ['not a number', () => 'yesterday'],
    ['in milliseconds', () => Date.now()],
    ['301 s old', () => now() - 301],
    ['302 s ahead', () => now() + 302],
  ])('X-Timestamp %s -> invalid_timestamp naming the tolerance', async (_what, timestamp) => {
    const res = await client.submitLead({}, { timestamp: timestamp() });
    expectError(res, 403, 'invalid_timestamp');
    expect(res.body.message).toContain('300 seconds');
  });

  it.each<[string, () => string | null]>([
    ['missing', () => null],
    ['empty', () => ''],
    ['not hex', () => 'sha256=zzzz'],
    ['truncated', () => sign(creds.hmac_secret, '{}').slice(0, 40)],
    ['signed with another secret', () => sign('hs_other', '{}')],
    ['signed over other bytes', () => sign(creds.hmac_secret, '{ }')],
  ])('X-Signature %s -> invalid_signature', async (_what, signature) => {
    expectError(await client.submitLead('{}', { signature: signature() }), 403, 'invalid_signature');
  });

  it('the signature covers the exact bytes: re-serialised JSON does not verify', async () => {
    const raw = '{"source":"x"}';
    const res = await client.submitLead('{ "source": "x" }', { signature: sign(creds.hmac_secret, raw) });
    expectError(res, 403, 'invalid_signature');
  });

  it('checks the timestamp before the signature', async () => {
    expectError(await client.submitLead('{}', { signature: null, timestamp: null }), 403, 'invalid_timestamp');
  });
});

describe('status lookup is authenticated the same way', () => {
  it('signature of the empty body, timestamp and key are required', async () => {
    expectError(await client.leadStatus('nope', { apiKey: null }), 401, 'missing_api_key');
    expectError(await client.leadStatus('nope', { timestamp: now() - 1000 }), 403, 'invalid_timestamp');
    expectError(await client.leadStatus('nope', { signature: sign(creds.hmac_secret, 'x') }), 403, 'invalid_signature');
    expectError(await client.leadStatus('nope'), 404, 'not_found');
  });
});

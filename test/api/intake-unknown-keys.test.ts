import { randomBytes } from 'node:crypto';
import type { CommandStartedEvent } from 'mongodb';
import { PAST_AUTHENTICATION, PartnerClient, type HttpResult } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { serviceEnv } from '../setup/services-env';
import { servicesOf } from '../support/manager-services';

// A flood of made-up API keys costs the database next to nothing: unknown keys are remembered, and
// an address with 20 failed authentications in a minute gets 429 before any look-up. Client
// addresses come from X-Forwarded-For through a trusted proxy (as behind a load balancer); every
// MongoDB command of the instance is watched through the driver's command monitoring.
let app: TestApp;
let valid: { api_key: string; hmac_secret: string };
const partnerReads: CommandStartedEvent[] = [];

beforeAll(async () => {
  const mongoUrl = new URL(serviceEnv().MONGO_URL);
  mongoUrl.searchParams.set('monitorCommands', 'true');
  app = await startTestApp(
    {},
    testConfig({ ROLE: 'ingress', TRUSTED_PROXIES: '127.0.0.1', MONGO_URL: mongoUrl.toString() }),
  );
  app.runtime.mongo.client.on('commandStarted', (e) => {
    // A partner is found by its key through partner_keys (partner-keys.ts): one read there per key.
    if (e.commandName === 'find' && e.command.find === 'partner_keys') partnerReads.push(e);
  });
  valid = (await servicesOf(app.runtime).partners.create({ name: 'Real partner' })).secrets;
});

afterAll(async () => {
  await app?.destroy();
});

const from = (ip: string, apiKey: string): Promise<HttpResult> =>
  new PartnerClient(app.url, { api_key: apiKey, hmac_secret: 'made-up' }).submitLead(
    {},
    { headers: { 'x-forwarded-for': ip } },
  );
const madeUpKey = () => `lk_${randomBytes(32).toString('base64url')}`;

it('reads MongoDB once per unknown key, then refuses the address with 429 before any look-up; other addresses are unaffected', async () => {
  const attacker = '198.51.100.66';
  const repeated = madeUpKey();
  for (let i = 0; i < 10; i++)
    expect(await from(attacker, repeated)).toMatchObject({ status: 401, body: { error: 'invalid_api_key' } });
  expect(partnerReads.length).toBe(1);

  for (let i = 0; i < 10; i++) expect((await from(attacker, madeUpKey())).status).toBe(401); // failures 11 to 20
  expect(partnerReads.length).toBe(11);

  for (let i = 0; i < 30; i++) {
    const refused = await from(attacker, madeUpKey());
    expect(refused).toMatchObject({
      status: 429,
      body: { error: 'too_many_auth_failures', message: expect.stringMatching(/try again in \d+ seconds/) },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  }
  expect(await from(attacker, valid.api_key)).toMatchObject({ status: 429 }); // the address, not the key, is throttled
  expect(partnerReads.length).toBe(11); // 50 made-up keys, 11 reads

  const partner = new PartnerClient(app.url, valid);
  for (let i = 0; i < 3; i++)
    expect(await partner.submitLead({}, { headers: { 'x-forwarded-for': '203.0.113.7' } })).toMatchObject(
      PAST_AUTHENTICATION,
    );
  expect(partnerReads.length).toBe(12); // its key read once, then cached
});

it('counts a request without any API key as a failure too', async () => {
  const forgetful = '198.51.100.77';
  const bare = () =>
    new PartnerClient(app.url, valid).submitLead({}, { apiKey: null, headers: { 'x-forwarded-for': forgetful } });
  for (let i = 0; i < 20; i++) expect(await bare()).toMatchObject({ status: 401, body: { error: 'missing_api_key' } });
  expect(await bare()).toMatchObject({ status: 429, body: { error: 'too_many_auth_failures' } });
});

// A key the cache knows skips the look-up, so its request's failed-authentication check rides on its
// admission (one Redis round trip with the rate limit and the key's claim): the answers must be the
// ones an unknown key's address gets, and a refused request must spend none of the partner's quota.
it('refuses a throttled address with 429 for a cached key too, whatever else is wrong with the request, spending no quota', async () => {
  const partner = new PartnerClient(app.url, valid);
  expect(await partner.submitLead({}, { headers: { 'x-forwarded-for': '203.0.113.8' } })).toMatchObject(
    PAST_AUTHENTICATION,
  ); // cached now
  const reads = partnerReads.length;
  const partnerId = (await app.runtime.partners.byApiKey(valid.api_key))?._id;
  const quotaUsed = () => app.runtime.redis.zcard(`rl:intake:${partnerId}`);
  const used = await quotaUsed();

  const throttled = '198.51.100.88';
  for (let i = 0; i < 20; i++) expect((await from(throttled, madeUpKey())).status).toBe(401);
  const headers = { 'x-forwarded-for': throttled };
  const tooMany = { status: 429, body: { error: 'too_many_auth_failures' } };
  expect(await partner.submitLead({}, { headers })).toMatchObject(tooMany);
  expect(await partner.submitLead({}, { headers, signature: 'sha256=00' })).toMatchObject(tooMany);
  expect(await partner.submitLead({}, { headers, timestamp: 1 })).toMatchObject(tooMany);
  expect(await partner.submitLead({}, { headers, idempotencyKey: null })).toMatchObject(tooMany);
  expect(partnerReads.length).toBe(reads + 20); // each made-up key once; the cached key never
  expect(await quotaUsed()).toBe(used);

  // From a clean address the same mistakes get their own answers, and only the signed request spends quota.
  const clean = { 'x-forwarded-for': '203.0.113.9' };
  expect(await partner.submitLead({}, { headers: clean, signature: 'sha256=00' })).toMatchObject({
    status: 403,
    body: { error: 'invalid_signature' },
  });
  expect(await partner.submitLead({}, { headers: clean, timestamp: 1 })).toMatchObject({
    status: 403,
    body: { error: 'invalid_timestamp' },
  });
  expect(await quotaUsed()).toBe(used);
  expect(await partner.submitLead({}, { headers: clean })).toMatchObject(PAST_AUTHENTICATION);
  expect(await quotaUsed()).toBe(used + 1);
});

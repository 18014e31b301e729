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
  app = await startTestApp({}, testConfig({ ROLE: 'ingress', TRUSTED_PROXIES: '127.0.0.1', MONGO_URL: mongoUrl.toString() }));
  app.runtime.mongo.client.on('commandStarted', (e) => {
    if (e.commandName === 'find' && e.command.find === 'partners') partnerReads.push(e);
  });
  valid = (await servicesOf(app.runtime).partners.create({ name: 'Real partner' })).secrets;
});

afterAll(async () => {
  await app?.destroy();
});

const from = (ip: string, apiKey: string): Promise<HttpResult> =>
  new PartnerClient(app.url, { api_key: apiKey, hmac_secret: 'made-up' }).submitLead({}, { headers: { 'x-forwarded-for': ip } });
const madeUpKey = () => `lk_${randomBytes(32).toString('base64url')}`;

it('reads MongoDB once per unknown key, then refuses the address with 429 before any look-up; other addresses are unaffected', async () => {
  const attacker = '198.51.100.66';
  const repeated = madeUpKey();
  for (let i = 0; i < 10; i++) expect(await from(attacker, repeated)).toMatchObject({ status: 401, body: { error: 'invalid_api_key' } });
  expect(partnerReads.length).toBe(1);

  for (let i = 0; i < 10; i++) expect((await from(attacker, madeUpKey())).status).toBe(401); // failures 11 to 20
  expect(partnerReads.length).toBe(11);

  for (let i = 0; i < 30; i++) {
    const refused = await from(attacker, madeUpKey());
    expect(refused).toMatchObject({ status: 429, body: { error: 'too_many_auth_failures', message: expect.stringMatching(/try again in \d+ seconds/) } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  }
  expect(await from(attacker, valid.api_key)).toMatchObject({ status: 429 }); // the address, not the key, is throttled
  expect(partnerReads.length).toBe(11); // 50 made-up keys, 11 reads

  const partner = new PartnerClient(app.url, valid);
  for (let i = 0; i < 3; i++) expect(await partner.submitLead({}, { headers: { 'x-forwarded-for': '203.0.113.7' } })).toMatchObject(PAST_AUTHENTICATION);
  expect(partnerReads.length).toBe(12); // its key read once, then cached
});

it('counts a request without any API key as a failure too', async () => {
  const forgetful = '198.51.100.77';
  const bare = () => new PartnerClient(app.url, valid).submitLead({}, { apiKey: null, headers: { 'x-forwarded-for': forgetful } });
  for (let i = 0; i < 20; i++) expect(await bare()).toMatchObject({ status: 401, body: { error: 'missing_api_key' } });
  expect(await bare()).toMatchObject({ status: 429, body: { error: 'too_many_auth_failures' } });
});

import { PartnerClient, type HttpResult } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { servicesOf } from '../support/manager-services';

// Spec 7.2 and 8: per partner (not per IP), 60 intake and 120 status requests per sliding
// 60-second window, bursts of parallel requests allowed, quotas raised per partner, one window
// shared by every ingress instance. Requests that fail validation still count, so no processor
// is needed: the rate limit is checked before the body is looked at.
let app: TestApp;
let second: TestApp;

beforeAll(async () => {
  const config = testConfig({ ROLE: 'ingress' });
  app = await startTestApp({}, config);
  second = await startTestApp({}, config);
});

afterAll(async () => {
  await second?.stop();
  await app?.destroy();
});

async function partnerClient(
  rateLimits?: { intake_per_minute?: number; status_per_minute?: number },
  on: TestApp = app,
): Promise<PartnerClient> {
  const { secrets } = await servicesOf(app.runtime).partners.create({
    name: 'Limited',
    ...(rateLimits ? { rate_limits: rateLimits } : {}),
  });
  return new PartnerClient(on.url, secrets);
}

const sequentially = async <T>(n: number, fn: () => Promise<T>): Promise<T[]> => {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await fn());
  return out;
};

function expectLimited(res: HttpResult, maxSeconds: number, minSeconds = 1): number {
  expect(res.status).toBe(429);
  const seconds = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(seconds)).toBe(true);
  expect(seconds).toBeGreaterThanOrEqual(minSeconds);
  expect(seconds).toBeLessThanOrEqual(maxSeconds);
  expect(res.body).toEqual({ error: 'rate_limit_exceeded', message: `Try again in ${seconds} seconds` });
  return seconds;
}

it('allows 10 parallel requests within one second', async () => {
  const client = await partnerClient();
  const results = await Promise.all(Array.from({ length: 10 }, () => client.submitLead({})));
  expect(results.map((r) => r.status)).toEqual(Array(10).fill(422));
});

it('allows 60 intake requests a minute and refuses the 61st with 429 and Retry-After', async () => {
  const client = await partnerClient();
  const results = await Promise.all(Array.from({ length: 60 }, () => client.submitLead({})));
  expect(results.filter((r) => r.status === 429)).toHaveLength(0);
  expectLimited(await client.submitLead({}), 60);
});

it('computes Retry-After from the oldest request in the window', async () => {
  const client = await partnerClient({ intake_per_minute: 3 });
  await client.submitLead({});
  await new Promise((r) => setTimeout(r, 3200));
  await sequentially(2, () => client.submitLead({}));
  // the first request leaves the window about 56.8 s from now
  const seconds = expectLimited(await client.submitLead({}), 57, 55);
  // a refused request is not counted: the answer does not move
  expect(expectLimited(await client.submitLead({}), seconds)).toBeLessThanOrEqual(seconds);
});

it('limits each partner separately, not by IP', async () => {
  const busy = await partnerClient({ intake_per_minute: 2 });
  const other = await partnerClient({ intake_per_minute: 2 });
  await sequentially(2, () => busy.submitLead({}));
  expectLimited(await busy.submitLead({}), 60);
  expect((await other.submitLead({})).status).toBe(422);
});

it('honours a raised quota', async () => {
  const client = await partnerClient({ intake_per_minute: 70 });
  const results = await Promise.all(Array.from({ length: 65 }, () => client.submitLead({})));
  expect(results.filter((r) => r.status === 429)).toHaveLength(0);
});

it('allows 120 status requests a minute, counted apart from intake', async () => {
  const client = await partnerClient({ intake_per_minute: 1 });
  await client.submitLead({});
  expectLimited(await client.submitLead({}), 60);
  const results = await Promise.all(Array.from({ length: 120 }, () => client.leadStatus('unknown')));
  expect(results.map((r) => r.status)).toEqual(Array(120).fill(404));
  expectLimited(await client.leadStatus('unknown'), 60);
});

it('shares one window across ingress instances', async () => {
  const { secrets } = await servicesOf(app.runtime).partners.create({
    name: 'Two doors',
    rate_limits: { intake_per_minute: 4 },
  });
  const viaFirst = new PartnerClient(app.url, secrets);
  const viaSecond = new PartnerClient(second.url, secrets);
  await Promise.all([
    viaFirst.submitLead({}),
    viaSecond.submitLead({}),
    viaFirst.submitLead({}),
    viaSecond.submitLead({}),
  ]);
  expectLimited(await viaFirst.submitLead({}), 60);
  expectLimited(await viaSecond.submitLead({}), 60);
});

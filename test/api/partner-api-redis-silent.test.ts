import { randomUUID } from 'node:crypto';
import { PartnerClient, type HttpResult } from '../support/partner-client';
import { PrivateService } from '../support/private-service';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { servicesOf } from '../support/manager-services';

// A Redis that keeps its connections open but answers nothing: a PRIVATE Redis (the shared one is
// never touched) frozen with SIGSTOP. Admission, the rate limits and the idempotency claim all wait
// on it; before their commands were bounded, every intake and status request hung until the partner
// gave up. Now each command gives up after REDIS_COMMAND_TIMEOUT_MS: the partner gets a 503 with
// Retry-After within the intake reply timeout, and the same requests succeed once Redis answers.
const REPLY_TIMEOUT_MS = 3000;
const PROMPT_MS = REPLY_TIMEOUT_MS + 1500; // room for a loaded 2-core machine

let redis: PrivateService;
let app: TestApp;
let partner: PartnerClient;
let frozen = false;

const freeze = (on: boolean) => {
  redis.signal(on ? 'SIGSTOP' : 'SIGCONT');
  frozen = on;
};
const timed = async (request: Promise<HttpResult>): Promise<HttpResult & { ms: number }> => {
  const started = Date.now();
  const res = await request;
  return { ...res, ms: Date.now() - started };
};
const lead = () => ({
  phone: `+4915112${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`,
  external_id: randomUUID(),
});

beforeAll(async () => {
  redis = await PrivateService.create('redis');
  await redis.start();
  app = await startTestApp(
    {},
    testConfig({
      ROLE: 'ingress,processor',
      ...redis.appEnv,
      INTAKE_REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS),
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    }),
  );
  partner = new PartnerClient(
    app.url,
    (await servicesOf(app.runtime).partners.create({ name: 'Silent Redis partner' })).secrets,
  );
  expect(await partner.submitLead(lead())).toMatchObject({ status: 200 });
}, 180_000);

afterAll(async () => {
  if (frozen) freeze(false);
  await app?.destroy();
  await redis?.destroy();
});

it('answers 503 with Retry-After within the reply timeout while Redis answers nothing, and serves again once it does', async () => {
  freeze(true);
  const answers = await Promise.all([
    timed(partner.submitLead(lead())),
    timed(partner.submitLead(lead())),
    timed(partner.leadStatus('not-stored')),
  ]);
  for (const a of answers) {
    expect({ status: a.status, error: a.body.error }).toEqual({ status: 503, error: 'service_unavailable' });
    expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(a.ms).toBeLessThan(PROMPT_MS);
  }
  const later = await timed(partner.submitLead(lead()));
  expect(later.status).toBe(503);
  expect(later.ms).toBeLessThan(PROMPT_MS);

  freeze(false);
  let again: HttpResult = await partner.submitLead(lead());
  for (let i = 0; i < 20 && again.status === 503; i++) {
    await new Promise((r) => setTimeout(r, 250));
    again = await partner.submitLead(lead());
  }
  expect(again).toMatchObject({ status: 200, body: { status: 'accepted' } });
}, 120_000);

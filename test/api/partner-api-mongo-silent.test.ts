import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PartnerClient, type HttpResult } from '../support/partner-client';
import { PrivateService } from '../support/private-service';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { servicesOf } from '../support/manager-services';

// A MongoDB-wire server that keeps its connections open but answers nothing: a PRIVATE FerretDB
// (the shared one other test files use is never touched) frozen with SIGSTOP, as a server is that
// hangs on one database (FerretDB on SQLite once wedged a database for good under the benchmark's
// batched updates: see scripts/services/ferretdb/patches/0005) or a primary that stops answering.
// The driver itself waits as long as the connection stays up, so before every partner-API read was
// bounded each request hung (and every request sharing its partner look-up with it) until the
// client gave up. Each read gives up after the intake reply timeout: the partner gets a 503 with
// Retry-After promptly (intake, status lookup and the reporting calls alike), and the same requests
// succeed as soon as the server answers again.
const REPLY_TIMEOUT_MS = 1500;
// The bound plus room for a loaded 2-core machine; the driver alone took 45 s (its monitor's
// 30 s connect timeout, then server selection) before failing the first read here.
const PROMPT_MS = REPLY_TIMEOUT_MS + 3500;

let service: PrivateService;
let app: TestApp;
let partner: PartnerClient;
let frozen = false;

const ferretPid = (): number => Number(readFileSync(join(service.dir, 'ferretdb.pid'), 'utf8').trim());
const freeze = (on: boolean) => {
  process.kill(ferretPid(), on ? 'SIGSTOP' : 'SIGCONT');
  frozen = on;
};
const timed = async (request: Promise<HttpResult>): Promise<HttpResult & { ms: number }> => {
  const started = Date.now();
  const res = await request;
  return { ...res, ms: Date.now() - started };
};
const madeUpKey = () => `lk_${randomBytes(32).toString('base64url')}`;
const stranger = (apiKey: string) => new PartnerClient(app.url, { api_key: apiKey, hmac_secret: 'made-up' });

beforeAll(async () => {
  service = await PrivateService.create('ferretdb');
  await service.start();
  app = await startTestApp(
    {},
    testConfig({ ROLE: 'ingress', ...service.appEnv, INTAKE_REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS) }),
  );
  partner = new PartnerClient(
    app.url,
    (await servicesOf(app.runtime).partners.create({ name: 'Silent store partner' })).secrets,
  );
  // The partner's key is read and cached before the freeze: its status lookups then need only the
  // lead reads, while a made-up key always needs a partner read.
  expect(await partner.leadStatus('warm-up')).toMatchObject({ status: 404 });
}, 180_000);

afterAll(async () => {
  if (frozen) freeze(false);
  await app?.destroy();
  await service?.destroy();
});

it('answers 503 with Retry-After within the reply timeout while MongoDB answers nothing, and serves again once it does', async () => {
  freeze(true);
  const key = madeUpKey();
  const answers = await Promise.all([
    timed(stranger(key).submitLead({})), // a partner look-up by key...
    timed(stranger(key).submitLead({})), // ...and one sharing it
    timed(stranger(madeUpKey()).leadStatus('x')),
    timed(partner.leadStatus('not-stored')), // known partner: the lead-ref read
    timed(partner.report('leads')), // the reporting calls: the lead list read model...
    timed(partner.report('leads', { external_id: 'x' })), // ...a lead by its ref...
    timed(partner.report('reports')), // ...and the report counters
  ]);
  for (const a of answers) {
    expect(a).toMatchObject({ status: 503, body: { error: 'service_unavailable' } });
    expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(a.ms).toBeLessThan(PROMPT_MS);
  }
  // Still frozen: every new request is bounded the same way, none waits behind the first ones.
  const later = await timed(stranger(key).submitLead({}));
  expect(later).toMatchObject({ status: 503, body: { error: 'service_unavailable' } });
  expect(later.ms).toBeLessThan(PROMPT_MS);

  freeze(false);
  // Nothing stays stuck on the reads given up on: the same key is looked up again and refused.
  let again: HttpResult = await stranger(key).submitLead({});
  for (let i = 0; i < 20 && again.status === 503; i++) {
    await new Promise((r) => setTimeout(r, 250));
    again = await stranger(key).submitLead({});
  }
  expect(again).toMatchObject({ status: 401, body: { error: 'invalid_api_key' } });
  expect(await timed(partner.leadStatus('not-stored'))).toMatchObject({ status: 404, body: { error: 'not_found' } });
  expect(await partner.report('leads')).toMatchObject({ status: 200, body: { items: [], next_cursor: null } });
  expect(await partner.report('reports')).toMatchObject({ status: 200, body: { by_day: [] } });
}, 120_000);

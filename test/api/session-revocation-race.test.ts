import { identityCollections } from '../../src/identity/identity-store';
import { createRedis, type Redis } from '../../src/shared/redis/client';
import { freePort } from '../support/free-port';
import { signInAtProvider, ssoSettings, startOidcProvider, type OidcProviderProcess } from '../support/oidc-provider';
import { SessionClient } from '../support/session-client';
import { slowLink, type SlowLink } from '../support/slow-link';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';

// "Sign out everywhere" raced by real sign-ins of the same person (single sign-on, so that many finish
// at once): a sign-in that finished before the revocation's mark never survives it, whatever the order
// the requests met in; only one issued at or after the mark may.
let provider: OidcProviderProcess;
let app: TestApp;
let redis: Redis;
let link: SlowLink;
const person = { sub: 'rae', email: 'rae@example.com', name: 'Rae', groups: ['analysts'] };
// Redis a few milliseconds away: the revocation's steps take that long apart, as on a real network.
const REDIS_DELAY_MS = 10;
const ROUNDS = 6;
const SIGN_INS = 8;

beforeAll(async () => {
  const port = await freePort();
  const redirect = `http://127.0.0.1:${port}/api/auth/sso/callback`;
  const client = { client_id: 'race', client_secret: 'sso-race-client-secret-0123456789', redirect_uris: [redirect] };
  provider = await startOidcProvider({ clients: [client], accounts: [person] });
  const redisUrl = new URL(testConfig({}).redis.url);
  link = await slowLink({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) }, REDIS_DELAY_MS);
  app = await startTestApp({
    ROLE: 'ingress',
    REDIS_URL: link.url('redis'),
    HTTP_PORT: String(port),
    ...ssoSettings(provider, client),
    SSO_ROLE_MAP: 'analysts=analyst',
  });
  redis = createRedis(app.config, 'test');
});

afterAll(async () => {
  redis?.disconnect();
  await app?.destroy();
  await provider?.stop();
  await link?.close();
});

// A browser sent back from the provider, its last step (the callback, which makes the session) not taken yet.
async function atCallback(): Promise<{ browser: SessionClient; callback: string }> {
  const browser = new SessionClient(app.url);
  const start = await browser.get('/api/auth/sso');
  const back = await signInAtProvider(start.headers.get('location')!, person.sub);
  return { browser, callback: `${back.pathname}${back.search}` };
}

async function signedIn(): Promise<SessionClient> {
  const { browser, callback } = await atCallback();
  expect((await browser.get(callback)).headers.get('location')).toBe('/console/');
  expect((await browser.get('/api/session')).status).toBe(200); // its CSRF token, as the console reads it
  return browser;
}

// How long a sign-in's last step takes here now (the machine is shared: it varies).
async function callbackTime(): Promise<number> {
  const { browser, callback } = await atCallback();
  const started = performance.now();
  await browser.get(callback);
  return performance.now() - started;
}

const issuedAt = async (browser: SessionClient): Promise<number | null> => {
  const stored = await redis.get(`sess:${decodeURIComponent(browser.cookie!.split('=')[1]!).split('.')[0]!}`);
  return stored === null ? null : (JSON.parse(stored) as { issued_at: number }).issued_at;
};

it('leaves no session that was issued before the revocation, over several rounds', async () => {
  await signedIn(); // the account, made at the first sign-on
  const accounts = identityCollections(app.runtime.mongo.db).accounts;
  const accountId = (await accounts.findOne({ 'sso.subject': person.sub }))!._id;
  let ended = 0;
  let after = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const revoker = await signedIn();
    const racers = await Promise.all(Array.from({ length: SIGN_INS }, atCallback));
    // The sign-ins' last steps spread over about twice the time one takes, and the revocation starts at a
    // different point of them each round: some finish before it, some while it runs, some after.
    const took = await callbackTime();
    const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const revocation = later(took * (0.5 + round / ROUNDS)).then(() => revoker.post('/api/me/sign-out-everywhere'));
    const signIns = racers.map((r, i) => later((i * took) / 4).then(() => r.browser.get(r.callback)));
    const [revoked, ...answers] = await Promise.all([revocation, ...signIns]);
    expect(revoked.status).toBe(204);
    for (const answer of answers) expect(answer.headers.get('location')).toBe('/console/');
    const mark = Number(await redis.get(`sess-revoked:${accountId}`));
    expect((await revoker.get('/api/session')).status).toBe(401);
    for (const { browser } of racers) {
      const issued = await issuedAt(browser);
      if ((await browser.get('/api/session')).status !== 200) ended += 1;
      else {
        after += 1;
        expect({ round, issuedBeforeMark: issued === null || issued < mark }).toEqual({
          round,
          issuedBeforeMark: false,
        });
      }
    }
  }
  // The race was real: sign-ins that finished in the rounds were ended by the revocation.
  expect(ended).toBeGreaterThan(0);
  expect(ended + after).toBe(ROUNDS * SIGN_INS);
});

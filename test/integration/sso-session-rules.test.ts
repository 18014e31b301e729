import { identityCollections } from '../../src/manager/identity/identity-store';
import { freePort } from '../support/free-port';
import { signInAtProvider, startOidcProvider, type OidcProviderProcess } from '../support/oidc-provider';
import { SessionClient } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// What single sign-on takes from a real OpenID Provider, and when it ends a session: an email it does not say it
// verified is not kept, a claim that maps to no role any more ends the account's sessions, and owners and admins
// must show the authentication SSO_PRIVILEGED_AMR asks for.
let provider: OidcProviderProcess;
let app: TestApp;
const people = [
  { sub: 'uma', email: 'uma@example.com', name: 'Uma', groups: ['analysts'], email_verified: null },
  { sub: 'vic', email: 'vic@example.com', name: 'Vic', groups: ['analysts'] },
  { sub: 'wes', email: 'wes@example.com', name: 'Wes', groups: ['lead-admins'] },
];

beforeAll(async () => {
  const port = await freePort();
  const redirect = `http://127.0.0.1:${port}/api/auth/sso/callback`;
  const client = { client_id: 'rules', client_secret: 'sso-rules-client-secret-0123456789', redirect_uris: [redirect] };
  provider = await startOidcProvider({ clients: [client], accounts: people });
  app = await startTestApp({
    ROLE: 'ingress',
    HTTP_PORT: String(port),
    SSO_ISSUER: provider.issuer,
    SSO_CLIENT_ID: client.client_id,
    SSO_CLIENT_SECRET: client.client_secret,
    SSO_REDIRECT_URL: redirect,
    SSO_SCOPES: 'openid email profile groups',
    SSO_ROLE_MAP: 'lead-admins=admin,analysts=analyst',
    SSO_PRIVILEGED_AMR: 'mfa,hwk',
  });
});

afterAll(async () => {
  await app?.destroy();
  await provider?.stop();
});

async function sso(browser: SessionClient, sub: string): Promise<string> {
  const start = await browser.get('/api/auth/sso');
  const back = await signInAtProvider(start.headers.get('location')!, sub);
  return (await browser.get(`${back.pathname}${back.search}`)).headers.get('location')!;
}

it('keeps no email the provider does not say it verified', async () => {
  expect(await sso(new SessionClient(app.url), 'uma')).toBe('/console/');
  const account = await identityCollections(app.runtime.mongo.db).accounts.findOne({ 'sso.subject': 'uma' });
  expect(account?.email).toBe('');
});

it('ends the sessions of an account whose claim maps to no role any more', async () => {
  const browser = new SessionClient(app.url);
  expect(await sso(browser, 'vic')).toBe('/console/');
  expect((await browser.get('/api/leads')).status).toBe(200);
  provider.setAccounts(people.map((p) => (p.sub === 'vic' ? { ...p, groups: ['former-staff'] } : p)));
  expect(await sso(new SessionClient(app.url), 'vic')).toBe('/console/#/sign-in?sso_error=no_role');
  expect((await browser.get('/api/leads')).status).toBe(401);
  provider.setAccounts(people);
});

it('refuses an admin whose sign-in shows none of the required authentication methods (amr)', async () => {
  const browser = new SessionClient(app.url);
  expect(await sso(browser, 'wes')).toBe('/console/#/sign-in?sso_error=assurance_required');
  expect((await browser.get('/api/leads')).status).toBe(401);
});

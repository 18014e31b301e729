import { identityCollections } from '../../src/identity/identity-store';
import { signInAtProvider, type OidcProviderProcess } from '../support/oidc-provider';
import { SessionClient } from '../support/session-client';
import { startSsoApp } from '../support/sso-app';
import type { TestApp } from '../support/test-app';

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
  ({ app, provider } = await startSsoApp({
    clientId: 'rules',
    people,
    roleMap: 'lead-admins=admin,analysts=analyst',
    env: { SSO_PRIVILEGED_AMR: 'mfa,hwk' },
  }));
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

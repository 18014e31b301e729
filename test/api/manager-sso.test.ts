import type { Db } from 'mongodb';
import { identityCollections } from '../../src/identity/identity-store';
import type { AuditDoc } from '../../src/shared/mongo/documents';
import { abortAtProvider, signInAtProvider, type OidcProviderProcess } from '../support/oidc-provider';
import { SessionClient } from '../support/session-client';
import { startSsoApp } from '../support/sso-app';
import type { TestApp } from '../support/test-app';

// Single sign-on through the manager API, the browser's way (redirects followed by hand) against a
// real OpenID Provider: an account is made at the first sign-in when the groups grant a role, the
// role follows the provider's groups, and whatever goes wrong sends the browser back to sign-in
// with a reason and signs nobody in.
let provider: OidcProviderProcess;
let app: TestApp;
let db: Db;
const people = [
  { sub: 'ada', email: 'ada@example.com', name: 'Ada Lovelace', groups: ['lead-admins'] },
  { sub: 'bob', email: 'bob@example.com', name: 'Bob', groups: ['staff'] },
  { sub: 'cy', email: 'cy@example.com', name: 'Cy', groups: ['analysts'] },
];

beforeAll(async () => {
  ({ app, provider } = await startSsoApp({
    clientId: 'managers',
    people,
    roleMap: 'lead-owners=owner,lead-admins=admin,analysts=analyst',
  }));

  db = app.runtime.mongo.db;
});

afterAll(async () => {
  await app?.destroy();
  await provider?.stop();
});

// Starts at our /api/auth/sso, signs `sub` in at the provider, and comes back to our callback.
async function sso(
  browser: SessionClient,
  atProvider: (url: string) => Promise<URL> = (url) => signInAtProvider(url, 'ada'),
) {
  const start = await browser.get('/api/auth/sso');
  expect(start.status).toBe(302);
  const back = await atProvider(start.headers.get('location')!);
  return browser.get(`${back.pathname}${back.search}`);
}

it('makes an account at the first sign-in with the role the groups map to, signed in by SSO, and audits it', async () => {
  const browser = new SessionClient(app.url);
  expect((await browser.get('/api/auth/methods')).body).toEqual({ sso: true });
  const done = await sso(browser);
  expect(done.status).toBe(302);
  expect(done.headers.get('location')).toBe('/console/');
  const session = await browser.get('/api/session');
  expect(session.body).toMatchObject({
    stage: 'signed_in',
    account: { name: 'Ada Lovelace', role: 'admin', method: 'sso' },
  });
  expect((await browser.get('/api/affiliates')).status).toBe(200);
  const accountId = (session.body as { account: { id: string } }).account.id;
  const account = await identityCollections(db).accounts.findOne({ _id: accountId });
  expect(account).toMatchObject({
    role: 'admin',
    password_hash: null,
    sso: { issuer: provider.issuer, subject: 'ada' },
  });
  const audit = await db.collection<AuditDoc>('audit_log').find({ target: accountId }).toArray();
  expect(audit.find((e) => e.action === 'account.sign_in')).toMatchObject({
    actor: accountId,
    auth_method: 'sso',
    actor_name: 'Ada Lovelace',
  });

  // A second sign-in finds the same account.
  const again = new SessionClient(app.url);
  await sso(again);
  expect((await again.get('/api/session')).body).toMatchObject({ account: { id: accountId } });
});

it('refuses a person whose groups grant no role, and makes no account', async () => {
  const browser = new SessionClient(app.url);
  const done = await sso(browser, (url) => signInAtProvider(url, 'bob'));
  expect(done.headers.get('location')).toBe('/console/#/sign-in?sso_error=no_role');
  expect((await browser.get('/api/affiliates')).status).toBe(401);
  expect(await identityCollections(db).accounts.countDocuments({ 'sso.subject': 'bob' })).toBe(0);
});

it('sends the browser back with a reason for a tampered state, a cancelled sign-in, or a callback without a start', async () => {
  const tampered = new SessionClient(app.url);
  const done = await sso(tampered, async (url) => {
    const back = await signInAtProvider(url, 'cy');
    back.searchParams.set('state', 'forged-state');
    return back;
  });
  expect(done.headers.get('location')).toBe('/console/#/sign-in?sso_error=state_mismatch');
  expect((await tampered.get('/api/leads')).status).toBe(401);

  const cancelled = await sso(new SessionClient(app.url), abortAtProvider);
  expect(cancelled.headers.get('location')).toBe('/console/#/sign-in?sso_error=provider_error');

  // Another browser's code, brought to a browser that started nothing.
  const start = await new SessionClient(app.url).get('/api/auth/sso');
  const back = await signInAtProvider(start.headers.get('location')!, 'cy');
  const stranger = new SessionClient(app.url);
  expect((await stranger.get(`${back.pathname}${back.search}`)).headers.get('location')).toBe(
    '/console/#/sign-in?sso_error=state_mismatch',
  );
  expect((await stranger.get('/api/leads')).status).toBe(401);
});

it('refuses a disabled account even when the provider vouches for the person', async () => {
  const cy = new SessionClient(app.url);
  await sso(cy, (url) => signInAtProvider(url, 'cy'));
  expect((await cy.get('/api/session')).body).toMatchObject({ account: { role: 'analyst' } });
  const id = ((await cy.get('/api/session')).body as { account: { id: string } }).account.id;
  await identityCollections(db).accounts.updateOne({ _id: id }, { $set: { status: 'disabled' } });
  const again = await sso(new SessionClient(app.url), (url) => signInAtProvider(url, 'cy'));
  expect(again.headers.get('location')).toBe('/console/#/sign-in?sso_error=account_disabled');
});

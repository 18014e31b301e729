import type { Db } from 'mongodb';
import { totpCode } from '../../src/identity/totp';
import type { AuditDoc } from '../../src/shared/mongo/documents';
import { forgedPasskey } from '../support/forged-passkey';
import { ManagerClient } from '../support/manager-client';
import type { HttpResult } from '../support/partner-client';
import { PORTAL_PASSWORD, portalSession } from '../support/portal-client';
import { enrol, invite, SessionClient } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// Changing one's password or second factors from a session asks for proof first (a stolen cookie is not
// enough), guesses of the current password are throttled and audited like sign-ins, and owners and
// admins reset a person's lost factors.
let app: TestApp;
let db: Db;
let owner: ManagerClient;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  db = app.runtime.mongo.db;
  owner = new ManagerClient(app.url);
});
afterAll(async () => {
  await app?.destroy();
});

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const error = (res: HttpResult) => (res.body as { error?: string }).error ?? res.status;
const at = (secret: string, steps: number) => totpCode(secret, Date.now() + steps * 30_000);
const audited = (action: string, target: string) =>
  db.collection<AuditDoc>('audit_log').find({ action, target }).toArray();

async function enrolled(role = 'analyst') {
  const invited = await invite(app.url, { email: email(role), role });
  return { ...invited, ...(await enrol(app.url, invited, PASSWORD)) };
}

describe('a new second factor from a session', () => {
  it('needs the current password and factor first, then replaces the TOTP only after that proof', async () => {
    const person = await enrolled();
    const { client } = person;
    expect(error(await client.post('/api/auth/totp/setup'))).toBe('reauthentication_required');
    expect(error(await client.post('/api/auth/passkey/register/options'))).toBe('reauthentication_required');

    const prove = (body: Record<string, unknown>) => client.post('/api/auth/reauthenticate', body);
    expect(error(await prove({ current_password: 'not my password' }))).toBe('invalid_credentials');
    expect(error(await prove({ current_password: PASSWORD }))).toBe('second_factor_invalid');
    expect(error(await prove({ current_password: PASSWORD, code: '000000' }))).toBe('second_factor_invalid');
    expect(error(await prove({ current_password: PASSWORD, passkey: forgedPasskey }))).toBe('sign_in_step_missing');
    expect(error(await client.post('/api/auth/totp/setup'))).toBe('reauthentication_required');
    expect((await prove({ current_password: PASSWORD, code: at(person.secret, 1) })).body).toMatchObject({
      stage: 'signed_in',
    });

    const setup = await client.post<{ secret: string }>('/api/auth/totp/setup');
    expect(setup.status).toBe(200);
    expect(
      (await client.post('/api/auth/totp/confirm', { code: totpCode(setup.body.secret, Date.now()) })).status,
    ).toBe(200);
    expect((await audited('account.second_factor_added', person.id)).at(-1)?.details).toEqual({
      kind: 'totp',
      replaced: true,
    });
    // The new secret signs in; the old one no longer does.
    const signIn = async (secret: string) => {
      const browser = new SessionClient(app.url);
      await browser.post('/api/auth/sign-in', { email: person.email, password: PASSWORD });
      return browser.post('/api/auth/totp', { code: at(secret, 1) });
    };
    expect(error(await signIn(person.secret))).toBe('second_factor_invalid');
    expect((await signIn(setup.body.secret)).body).toMatchObject({ stage: 'signed_in' });
  });
});

describe('a new password from a session', () => {
  it('is throttled and audited like a sign-in: wrong current passwords count as failures', async () => {
    const person = await enrolled();
    const change = (current: string) =>
      person.client.post('/api/me/password', { current_password: current, new_password: 'a new long passphrase' });
    for (let i = 0; i < 5; i += 1) expect(error(await change(`wrong ${i}`))).toBe('invalid_credentials');
    expect(error(await change(PASSWORD))).toBe('sign_in_throttled');
    const failures = await audited('account.sign_in_failed', person.id);
    expect(failures.filter((e) => e.details?.step === 'current_password')).toHaveLength(5);
    // The fifth reached the limit for this account from this network, audited as such.
    expect((await audited('account.locked', person.id)).map((e) => e.details)).toEqual([
      expect.objectContaining({ step: 'current_password', limit: 'source' }),
    ]);
  });

  it('in the portal as in the console', async () => {
    const partner = await owner.post<{ id: string }>('/api/affiliates', {
      name: 'own-password-throttle',
      callback_url: 'http://127.0.0.1:9/pw',
    });
    const viewer = await portalSession(app.url, partner.body.id, 'partner_viewer');
    const change = (current: string) =>
      viewer.client.post('/portal/api/me/password', {
        current_password: current,
        new_password: 'a new long passphrase',
      });
    for (let i = 0; i < 5; i += 1) expect(error(await change(`wrong ${i}`))).toBe('invalid_credentials');
    expect(error(await change(PORTAL_PASSWORD))).toBe('sign_in_throttled');
    expect(await audited('portal.sign_in_failed', viewer.id)).toHaveLength(5);
  });
});

describe("resetting a person's second factors", () => {
  it('is for owners and admins over the accounts they may manage: sessions end, the next sign-in sets one up', async () => {
    const person = await enrolled('support');
    const reset = await owner.post(`/api/accounts/${person.id}/second-factors/reset`);
    expect(reset.body).toMatchObject({ id: person.id, second_factors: { totp: false, passkeys: 0 } });
    expect((await person.client.get('/api/leads')).status).toBe(401);
    const browser = new SessionClient(app.url);
    expect((await browser.post('/api/auth/sign-in', { email: person.email, password: PASSWORD })).body).toMatchObject({
      stage: 'enroll',
    });
    expect(await audited('account.second_factor_removed', person.id)).toHaveLength(1);

    const admin = await enrolled('admin');
    const other = await enrolled('owner');
    expect(error(await admin.client.post(`/api/accounts/${other.id}/second-factors/reset`))).toBe('forbidden');
    expect(error(await admin.client.post(`/api/accounts/${admin.id}/second-factors/reset`))).toBe('conflict');
    expect((await admin.client.post(`/api/accounts/${person.id}/second-factors/reset`)).status).toBe(200);
  });

  it("is for a partner's admins over their colleagues in the portal", async () => {
    const partner = await owner.post<{ id: string }>('/api/affiliates', {
      name: 'factor-reset',
      callback_url: 'http://127.0.0.1:9/reset',
    });
    const admin = await portalSession(app.url, partner.body.id, 'partner_admin');
    const viewer = await portalSession(app.url, partner.body.id, 'partner_viewer', admin);
    expect(error(await viewer.client.post(`/portal/api/users/${admin.id}/second-factors/reset`))).toBe('forbidden');
    const reset = await admin.client.post(`/portal/api/users/${viewer.id}/second-factors/reset`);
    expect(reset.body).toMatchObject({ id: viewer.id });
    expect((await viewer.client.get('/portal/api/me')).status).toBe(401);
    expect(await audited('portal.second_factor_removed', viewer.id)).toHaveLength(1);
  });
});

import type { Db } from 'mongodb';
import type { Browser, Page } from 'playwright-core';
import type { AuditDoc } from '../../src/shared/mongo/documents';
import { launchChromium, pageWidths, unnamedControls, watched } from '../support/console-browser';
import { ManagerClient } from '../support/manager-client';
import { acceptPortalLink, portalNav, portalShot, signInToPortal } from '../support/portal-browser';
import { inviteFirstAdmin, PORTAL_PASSWORD, PortalClient, portalSession, portalSignIn } from '../support/portal-client';
import { startTestApp, type TestApp } from '../support/test-app';

// A partner's person's own account in the portal: who they are, a new password (every other session
// ends), signing out everywhere; for a viewer as for an admin, audited about their partner; and the
// page that does it, in Chromium.
let app: TestApp;
let db: Db;
let partnerId: string;
const NEW_PASSWORD = 'a brand new portal passphrase';

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  db = app.runtime.mongo.db;
  const made = await new ManagerClient(app.url).post<{ id: string }>('/api/affiliates', {
    name: 'own-account',
    callback_url: 'http://127.0.0.1:9/own',
  });
  partnerId = made.body.id;
});

afterAll(async () => {
  await app?.destroy();
});

const audited = (action: string, target: string) =>
  db.collection<AuditDoc>('audit_log').countDocuments({ action, target, partner_id: partnerId });

describe('your account', () => {
  it('shows a viewer who they are, and changes their password: other sessions end, this one goes on', async () => {
    const viewer = await portalSession(app.url, partnerId, 'partner_viewer');
    expect((await viewer.client.get('/portal/api/me')).body).toMatchObject({
      account: { id: viewer.id, email: viewer.email, role: 'partner_viewer', partner_id: partnerId, status: 'active' },
    });
    const other = await portalSignIn(app.url, viewer);
    const change = (current: string, next: string) =>
      viewer.client.post('/portal/api/me/password', { current_password: current, new_password: next });
    expect((await change('not my password', NEW_PASSWORD)).body).toMatchObject({ error: 'invalid_credentials' });
    expect((await change(PORTAL_PASSWORD, 'short')).status).toBe(422);
    expect((await other.get('/portal/api/me')).status).toBe(200); // nothing changed yet

    const changed = await change(PORTAL_PASSWORD, NEW_PASSWORD);
    expect(changed.body).toMatchObject({ stage: 'signed_in', account: { id: viewer.id } });
    expect((await other.get('/portal/api/me')).status).toBe(401);
    expect((await viewer.client.get('/portal/api/me')).status).toBe(200);
    const signIn = (password: string) =>
      new PortalClient(app.url).post('/portal/api/auth/sign-in', { email: viewer.email, password });
    expect((await signIn(PORTAL_PASSWORD)).body).toMatchObject({ error: 'invalid_credentials' });
    expect((await signIn(NEW_PASSWORD)).body).toMatchObject({ stage: 'second_factor' });
    expect(await audited('portal.password_set', viewer.id)).toBe(2); // the link's, then this one
  });

  it('signs out everywhere: every session of the person ends, this one too', async () => {
    const admin = await portalSession(app.url, partnerId, 'partner_admin');
    const other = await portalSignIn(app.url, admin);
    expect((await admin.client.post('/portal/api/me/sign-out-everywhere')).status).toBe(204);
    for (const client of [admin.client, other]) expect((await client.get('/portal/api/me')).status).toBe(401);
    expect(await audited('portal.sessions_revoked', admin.id)).toBe(1);
  });
});

describe('the account page', () => {
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await watched(await browser.newContext({ viewport: { width: 1280, height: 900 } }), errors);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('is reached from the account menu and changes the password', async () => {
    const invited = await inviteFirstAdmin(app.url, partnerId, {
      name: 'Page Person',
      email: 'page.person@partner.example',
    });
    const base = app.url.replace('127.0.0.1', 'localhost'); // WebAuthn wants a name, not an address
    const secret = await acceptPortalLink(page, `${base}/portal/#/link/${invited.link.token}`, PORTAL_PASSWORD);
    await portalNav(page).waitFor();
    await page.getByRole('button', { name: /Page Person/ }).click();
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await page.getByText(invited.user.email).waitFor();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await portalShot(page, 'account');
      const [inner, scroll] = await pageWidths(page);
      expect(scroll).toBeLessThanOrEqual(inner!);
    }
    expect(await unnamedControls(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByLabel('Current password').fill(PORTAL_PASSWORD);
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change the password' }).click();
    await page.getByText('Password changed.').waitFor();
    await page.getByRole('button', { name: /Page Person/ }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByLabel('Email', { exact: true }).waitFor(); // signed out before the page is left
    await signInToPortal(page, base, { email: invited.user.email, password: NEW_PASSWORD, secret });
    expect(errors).toEqual([]);
  });
});

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '../../src/identity/totp';
import { zonedDateTime } from '../../src/shared/local-time';
import {
  launchChromium,
  section,
  setPasswordAndTotp,
  shot,
  unnamedControls,
  watched as watchedBy,
} from '../support/console-browser';
import { SECTIONS } from '../support/console-stack';
import { ManagerClient } from '../support/manager-client';
import { invite } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// People signing in to the console in a real browser (Debian's Chromium through playwright-core):
// the first owner set up through a one-time link made with the break-glass token, an analyst invited
// on the Accounts page who sees only what the role allows, signing in with a password and a TOTP
// code, and with a passkey made in Chromium's virtual authenticator.
const PASSWORD = 'a long owner passphrase';
// The browser's time zone (not UTC): the accounts' last sign-in is shown in it.
const ZONE = 'America/New_York';

let app: TestApp;
let manager: ManagerClient;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let secret: string;
const browserErrors: string[] = [];

// WebAuthn refuses an IP address as the relying party's ID: the browser opens the app as localhost.
const base = () => app.url.replace('127.0.0.1', 'localhost');
const watched = (c: BrowserContext) => watchedBy(c, browserErrors);
const nav = (p: Page) => p.getByRole('navigation', { name: 'Sections' });
const navLinks = async (p: Page) => (await nav(p).getByRole('link').allTextContents()).map((t) => t.trim());

beforeAll(async () => {
  app = await startTestApp();
  manager = new ManagerClient(app.url);
  browser = await launchChromium();
  context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
    timezoneId: ZONE,
  });
  page = await watched(context);
});

afterAll(async () => {
  await browser?.close();
  await app?.destroy();
});

// The link's page, then the second factor set up as an authenticator app: the person lands signed in.
async function acceptLink(p: Page, url: string, password: string): Promise<string> {
  await p.goto(url);
  return setPasswordAndTotp(p, password);
}

async function passwordStep(p: Page, email: string): Promise<void> {
  await p.getByLabel('Email', { exact: true }).fill(email);
  await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function accountMenu(p: Page, item: string): Promise<void> {
  await p.getByRole('button', { name: 'First Owner (owner)', exact: true }).click();
  const target = p.locator('#account-menu-items').getByText(item, { exact: true });
  await target.click();
}

describe('people in the console', () => {
  it('sets up the first owner through a one-time link: a password, then TOTP; a reload keeps them signed in', async () => {
    const invited = await invite(app.url, { email: 'first.owner@example.com', name: 'First Owner', role: 'owner' });
    await page.goto(`${base()}/console/#/link/${invited.token}`);
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    await page.getByText('first.owner@example.com', { exact: false }).waitFor(); // the link's details come after its heading
    await shot(page, 'link');
    await page.getByLabel('New password').fill('too short');
    await page.getByLabel('The same password again').fill('too short');
    await page.getByRole('button', { name: 'Set the password' }).click();
    // The browser holds a short password back (minlength) before the server would refuse it.
    expect(await page.getByLabel('New password').evaluate((el: HTMLInputElement) => el.validity.tooShort)).toBe(true);

    secret = await acceptLink(page, `${base()}/console/#/link/${invited.token}`, PASSWORD);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url()).not.toContain(invited.token);
    expect(await navLinks(page)).toEqual([...SECTIONS]);

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('button', { name: 'First Owner (owner)', exact: true }).waitFor();
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([
      0,
      0,
      '',
    ]);
    // The link worked once.
    const used = await fetch(`${app.url}/api/auth/links/peek`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: invited.token }),
    });
    expect(used.status).toBe(410);
  });

  it("invites an analyst, shows the link once; the analyst's console shows neither partner settings nor accounts", async () => {
    const partner = (await manager.post<{ id: string }>('/api/affiliates', { name: 'Analysed partner' })).body;
    await section(page, 'Accounts');
    await page.getByLabel('Email', { exact: true }).fill('ana@example.com');
    await page.getByLabel('Name', { exact: true }).fill('Ana Analyst');
    await page.getByLabel('Role', { exact: true }).selectOption('analyst');
    await page.getByRole('button', { name: 'Invite' }).click();
    const shown = page.getByRole('region', { name: 'Invitation for Ana Analyst' });
    const link = await shown.getByLabel('One-time link', { exact: true }).inputValue();
    expect(link).toMatch(new RegExp(`^${base()}/console/#/link/inv_`));
    await shown.getByRole('button', { name: 'Copy One-time link' }).click();
    await shown.getByText('Copied').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(link);
    expect(await unnamedControls(page)).toEqual([]);
    await shot(page, 'accounts-invited');
    await shown.getByRole('button', { name: 'Done, hide the link' }).click();
    expect(await page.content()).not.toContain(link.split('#/link/')[1]);
    const table = page.getByRole('region', { name: 'Accounts' });
    await table.getByRole('row', { name: /Ana Analyst.*analyst.*invited/ }).waitFor();

    const analystContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const analyst = await watched(analystContext);
    await acceptLink(analyst, link, 'an analyst passphrase');
    expect(await navLinks(analyst)).toEqual(['Overview', 'Reports', 'Partners', 'Leads']);
    await analyst.evaluate((h) => {
      location.hash = h;
    }, `#/partners/${partner.id}`);
    await analyst.getByRole('heading', { level: 1, name: 'Partner Analysed partner' }).waitFor();
    for (const hidden of ['Settings', 'Rotate credentials', 'Postbacks', 'Callbacks'])
      expect(await analyst.getByRole('heading', { name: hidden, exact: true }).count()).toBe(0);
    await analyst.evaluate((h) => {
      location.hash = h;
    }, '#/partners');
    await analyst.getByRole('heading', { level: 1, name: 'Partners' }).waitFor();
    expect(await analyst.getByRole('button', { name: 'New partner' }).count()).toBe(0);
    await shot(analyst, 'analyst-partners');
    // A page the role may not read is not shown, even by its address.
    await analyst.evaluate((h) => {
      location.hash = h;
    }, '#/accounts');
    await analyst.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    // The owner disables the analyst: the analyst's next request finds the session ended.
    await table.getByRole('button', { name: 'Disable Ana Analyst' }).click();
    await table.getByRole('row', { name: /Ana Analyst.*disabled/ }).waitFor();
    await analyst.evaluate((h) => {
      location.hash = h;
    }, '#/reports');
    await analyst.getByText('Your session has ended. Sign in again.').waitFor();
    await table.getByRole('button', { name: 'Enable Ana Analyst' }).click();
    await table.getByRole('row', { name: /Ana Analyst.*active/ }).waitFor();
    // The analyst lost their authenticator app: the owner resets their second factors.
    await table.getByRole('button', { name: 'Reset second factors of Ana Analyst' }).click();
    await table.getByRole('row', { name: /Ana Analyst.*active.*none/ }).waitFor();
    await table.getByRole('button', { name: 'New link for Ana Analyst' }).click();
    await page
      .getByRole('region', { name: 'Password reset for Ana Analyst' })
      .getByRole('button', { name: 'Done, hide the link' })
      .click();
    await analystContext.close();
  });

  it('makes a service account token shown once, lists it by prefix, and revokes it', async () => {
    await section(page, 'Tokens');
    await page.getByLabel('Name', { exact: true }).fill('CRM sync');
    await page.getByLabel('Role', { exact: true }).selectOption('support');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByRole('region', { name: 'Token for CRM sync' });
    const token = await shown.getByLabel('Token', { exact: true }).inputValue();
    expect((await manager.withToken(token).get('/api/deliveries')).status).toBe(200);
    await shown.getByRole('button', { name: 'Done, hide the token' }).click();
    const row = page.getByRole('region', { name: 'Service accounts' }).getByRole('row', { name: /CRM sync/ });
    await expect(row.textContent()).resolves.toContain(token.slice(0, 10));
    expect(await page.content()).not.toContain(token);
    await shot(page, 'tokens');
    await row.getByRole('button', { name: 'Revoke CRM sync' }).click();
    await row.getByText(/revoked/).waitFor();
    expect((await manager.withToken(token).get('/api/deliveries')).status).toBe(401);
  });

  it('signs out, and signs in again with the password and a TOTP code', async () => {
    await accountMenu(page, 'Sign out');
    await page.getByText('Signed out.').waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // No single sign-on configured here: the page offers none.
    expect(await page.getByRole('link', { name: 'Sign in with SSO' }).count()).toBe(0);
    await passwordStep(page, 'first.owner@example.com');
    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('(second_factor_invalid)');
    // The next step's code: this step's confirmed the set-up, and a code works once.
    await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, Date.now() + 30_000));
    await page.getByRole('button', { name: 'Verify' }).click();
    // Signed in, back on the page the owner signed out from.
    await page.getByRole('heading', { level: 1, name: 'Tokens' }).waitFor();
  });

  it("shows each account's last sign-in in the browser's time zone, one's own too", async () => {
    await section(page, 'Accounts');
    const table = page.getByRole('region', { name: 'Accounts' });
    await table.getByRole('columnheader', { name: `Last sign-in (${ZONE})` }).waitFor();
    const accounts = await manager.get<{ items: { email: string; last_sign_in_at: string }[] }>('/api/accounts');
    const owner = accounts.body.items.find((a) => a.email === 'first.owner@example.com')!;
    const shown = zonedDateTime(new Date(owner.last_sign_in_at), ZONE).replace('T', ' ').slice(0, 19);
    expect(await table.getByRole('row', { name: /First Owner/ }).textContent()).toContain(shown);
    await accountMenu(page, 'Your account');
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await page.locator('dl.facts').getByText(`${shown} ${ZONE}`).waitFor();
  });

  it("adds a passkey in Chromium's virtual authenticator and signs in with it", async () => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    await accountMenu(page, 'Your account');
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    // Adding a factor needs the password and the app's code first (the steps the sign-ins used are forgotten).
    await app.runtime.mongo.db
      .collection('accounts')
      .updateOne({ email: 'first.owner@example.com' }, { $set: { 'totp.last_step': null } });
    await page.getByLabel('Your password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Code from your app').fill(totpCode(secret, Date.now()));
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.getByLabel('Passkey name').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey added.').waitFor();
    await page.getByText('1 passkey(s)', { exact: false }).waitFor();
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(1);
    await shot(page, 'account');

    await accountMenu(page, 'Sign out');
    await passwordStep(page, 'first.owner@example.com');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    const signIns = await manager.get<{
      items: { actor_name: string; auth_method: string; details: Record<string, unknown> }[];
    }>('/api/audit-log?action=account.sign_in');
    expect(signIns.body.items[0]).toMatchObject({
      actor_name: 'First Owner',
      auth_method: 'passkey',
      details: { second_factor: 'passkey' },
    });

    await accountMenu(page, 'Sign out everywhere');
    await page.getByText('Signed out on every device.').waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(browserErrors).toEqual([]);
  });
});

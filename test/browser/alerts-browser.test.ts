import type { Browser, Page } from 'playwright-core';
import { ALERT_KINDS } from '../../src/alerts/alert-kinds';
import { AlertPreferences } from '../../src/alerts/alert-preferences';
import { systemClock } from '../../src/shared/clock';
import { launchChromium, signInWith, watched } from '../support/console-browser';
import { servicesOf } from '../support/manager-services';
import { acceptPortalLink, portalNav } from '../support/portal-browser';
import { inviteFirstAdmin, PORTAL_PASSWORD } from '../support/portal-client';
import { atBothWidths } from '../support/portal-widths';
import { enrol, invite } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// Each person's choice of alerts on Your account, in Chromium at a desktop and a phone width: a
// partner's admin in the portal, and an affiliate manager in the console, each choice stored for
// the alerts worker to read.
let app: TestApp;
let browser: Browser;
let page: Page;
const errors: string[] = [];
let partnerId: string;
let preferences: AlertPreferences;

const base = () => app.url.replace('127.0.0.1', 'localhost'); // WebAuthn wants a name, not an address

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  partnerId = (await servicesOf(app.runtime).partners.create({ name: 'Acme Leads' })).partner.id;
  preferences = new AlertPreferences(app.runtime.mongo.db, systemClock);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.destroy();
});

beforeEach(async () => {
  page = await watched(await browser.newContext({ viewport: { width: 1280, height: 900 } }), errors);
});

afterEach(() => expect(errors.splice(0)).toEqual([]));

async function choose(p: Page, off: string[], on: string[]): Promise<void> {
  const alerts = p.getByRole('region', { name: 'Alerts' });
  await alerts.getByLabel('Endpoint failing').waitFor();
  for (const label of off) await alerts.getByLabel(label, { exact: true }).uncheck();
  for (const label of on) await alerts.getByLabel(label, { exact: true }).check();
  await alerts.getByRole('button', { name: 'Save alerts' }).click();
  await alerts.getByText('Alerts saved.').waitFor();
}

it("lets a partner's person choose their alerts in the portal", async () => {
  const invited = await inviteFirstAdmin(app.url, partnerId, { name: 'Ada Admin' });
  await acceptPortalLink(page, `${base()}/portal/#/link/${invited.link.token}`, PORTAL_PASSWORD);
  await portalNav(page).waitFor();
  await page.getByRole('button', { name: /Ada Admin/ }).click();
  await page.getByRole('link', { name: 'Your account' }).click();
  await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
  // The summary is asked for; every other alert is on until turned off.
  expect(await page.getByLabel('Daily summary').isChecked()).toBe(false);
  await choose(page, ['Endpoint resumed'], ['Daily summary']);
  await atBothWidths(page, 'account-alerts');
  expect(await preferences.of(invited.user.id)).toEqual(ALERT_KINDS.filter((k) => k !== 'endpoint_resumed'));
  await page.reload();
  expect(await page.getByLabel('Endpoint resumed').isChecked()).toBe(false);
  expect(await page.getByLabel('Daily summary').isChecked()).toBe(true);

  // An admin names the partner's webhook for its alerts on Integration.
  await portalNav(page).getByRole('link', { name: 'Integration', exact: true }).click();
  const hook = page.getByRole('region', { name: 'Alerts webhook' });
  await hook.getByLabel('Post our alerts to (empty: nowhere)').fill('https://hooks.acme.example/alerts');
  await hook.getByRole('button', { name: 'Save the alerts webhook' }).click();
  await hook.getByText('Alerts will be posted there.').waitFor();
  await atBothWidths(page, 'integration-alerts');
  const stored = await app.runtime.mongo.db.collection('alert_webhooks').findOne({ _id: partnerId as never });
  expect(stored?.url).toBe('https://hooks.acme.example/alerts');
}, 60_000);

it('lets a manager choose the alerts of the partners they look after in the console', async () => {
  const invited = await invite(app.url, {
    email: 'mia@leads.example',
    role: 'affiliate_manager',
    partner_ids: [partnerId],
  });
  const password = 'a manager passphrase';
  const { secret } = await enrol(app.url, invited, password);
  await signInWith(page, base(), { email: invited.email, password, secret });
  await page.goto(`${base()}/console/#/account`);
  await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
  await choose(page, ['Cap nearly reached', 'Key rotation ending'], []);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(100);
    const [inner, scroll] = await page.evaluate(() => [window.innerWidth, document.documentElement.scrollWidth]);
    expect(scroll).toBeLessThanOrEqual(inner!);
  }
  expect(await preferences.of(invited.id)).not.toContain('cap_warning');
  expect(await preferences.of(invited.id)).not.toContain('secret_grace_ending');
  expect(await preferences.of(invited.id)).toContain('deliveries_dead');
}, 60_000);

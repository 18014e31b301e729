import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { goToHash } from '../support/browser-hash';
import { launchChromium, setPassword, watched as watchedBy } from '../support/console-browser';
import { ManagerClient } from '../support/manager-client';
import { servicesOf } from '../support/manager-services';
import { PartnerClient, type PartnerCredentials } from '../support/partner-client';
import { acceptPortalLink, openSection, portalNav, signInToPortal } from '../support/portal-browser';
import { inviteFirstAdmin } from '../support/portal-client';
import { atBothWidths, cardsOnPhone, WIDTHS } from '../support/portal-widths';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The partner portal in a real browser (Debian's Chromium through playwright-core) against the whole
// pipeline: a partner's first admin set up through a manager's one-time link, every page at desktop
// and phone widths showing that partner's data and never another's, a dead callback retried and a
// key rotated on the page, and a viewer who sees no action. PORTAL_SCREENSHOTS=1 writes the
// screenshots docs/partners.md shows.
const PASSWORD = 'a partner admin passphrase';

let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const browserErrors: string[] = [];
const admin = { email: 'ada@acme.example', password: PASSWORD, secret: '' };
let acme: { id: string; creds: PartnerCredentials };
let other: { id: string; leadId: string };

// WebAuthn and the clipboard want a name, not an IP address: the browser opens the app as localhost.
const base = () => app.url.replace('127.0.0.1', 'localhost');

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all', CALLBACK_RETRY_DELAYS_S: '1,1,1,1' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  const partners = servicesOf(app.runtime).partners;
  const a = await partners.create({ name: 'Acme Leads', callback_url: receiver.url('/acme') });
  receiver.route('/acme', a.secrets.callback_secret, status(404, 'no such hook'));
  const b = await partners.create({ name: 'Other Media', callback_url: receiver.url('/other') });
  receiver.route('/other', b.secrets.callback_secret);
  acme = { id: a.partner.id, creds: a.secrets };
  const acmeClient = new PartnerClient(app.url, a.secrets);
  for (const [i, country] of (['GB', 'GB', 'DE'] as const).entries()) {
    const sent = await acmeClient.submitLead({
      external_id: `acme-${i + 1}`,
      phone: `+4479111234${50 + i}`,
      country,
      source: i === 2 ? 'display' : 'search',
    });
    expect(sent.body).toMatchObject({ status: 'accepted' });
  }
  await acmeClient.submitLead({ external_id: 'acme-bad', country: 'GB' }); // no phone: a validation error
  const otherLead = await new PartnerClient(app.url, b.secrets).submitLead({
    external_id: 'other-secret-1',
    phone: '+447911999001',
    country: 'FR',
    source: 'other-source',
  });
  other = { id: b.partner.id, leadId: otherLead.body.id as string };
  browser = await launchChromium();
  context = await browser.newContext({
    viewport: { width: WIDTHS[0], height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  page = await watchedBy(context, browserErrors);
});

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await app?.destroy();
});

describe('the partner portal', () => {
  it("sets up the partner's first admin through the manager's one-time link: a password, then TOTP", async () => {
    const invited = await inviteFirstAdmin(app.url, acme.id, { email: admin.email, name: 'Ada Admin' });
    const url = `${base()}/portal/#/link/${invited.link.token}`;
    admin.secret = await acceptPortalLink(page, url, PASSWORD, () => atBothWidths(page, 'link'));
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url()).not.toContain(invited.link.token);
    expect((await portalNav(page).getByRole('link').allTextContents()).map((t) => t.trim())).toEqual([
      'Overview',
      'Leads',
      'Callbacks and postbacks',
      'Integration',
      'Users',
    ]);
    await expect(page.locator('header').textContent()).resolves.toContain('Acme Leads');
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([
      0,
      0,
      '',
    ]);
  });

  it('signs out, and signs in again with the password and a TOTP code', async () => {
    await page.getByRole('button', { name: 'Ada Admin (partner admin)' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByText('Signed out.').waitFor();
    await signInToPortal(page, base(), admin, () => atBothWidths(page, 'sign-in'));
  });

  it("shows the partner's own overview: figures, a bar per day, by source and by country, a CSV link", async () => {
    // The reports read model counts the leads a moment after they are decided.
    await until(
      async () => {
        await page.reload();
        await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        return /Received\s*4/.test(
          (await page
            .locator('dl.stats')
            .textContent()
            .catch(() => '')) ?? '',
        );
      },
      30_000,
      'the overview counting 4 leads',
    );
    const stats = (await page.locator('dl.stats').textContent()) ?? '';
    expect(stats).toMatch(/Accepted\s*3/);
    expect(stats).toMatch(/Validation errors\s*1/);
    await page
      .getByRole('region', { name: 'By source' })
      .getByRole('row', { name: /search/ })
      .waitFor();
    await page.getByRole('region', { name: 'By country' }).getByRole('row', { name: /DE/ }).waitFor();
    await page.getByText('No caps: every lead that passes the checks is accepted.').waitFor();
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    expect((await page.request.get(`${base()}/portal/${icon}`)).headers()['content-type']).toBe('image/svg+xml');
    const csv = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    expect(csv).toBe('/portal/api/overview.csv?days=7');
    await page.getByRole('link', { name: '30 days' }).click();
    await page.getByRole('link', { name: 'Download CSV' }).and(page.locator('[href$="days=30"]')).waitFor();
    await atBothWidths(page, 'overview');
    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('First day').fill(today);
    await page.getByRole('button', { name: 'Show these days' }).click();
    await page.locator(`[href="/portal/api/overview.csv?from=${today}&to=${today}"]`).waitFor();
    expect(await page.content()).not.toMatch(/other-source|Other Media|FR\b/);
  });

  it("lists only the partner's leads, newest first, masked, with a lead's timeline; another partner's lead is not found", async () => {
    await openSection(page, 'Leads');
    const table = page.getByRole('region', { name: 'Leads' });
    await table.getByRole('row', { name: /acme-3/ }).waitFor();
    const rows = await table.getByRole('row').allTextContents();
    expect(rows.slice(1).map((r) => r.match(/acme-\d/)?.[0])).toEqual(['acme-3', 'acme-2', 'acme-1']);
    expect(rows.join(' ')).toContain('+44 79** ***452');
    expect(rows.join(' ')).not.toMatch(/\+4479111234\d\d|other-secret/);
    const statuses = await page.getByLabel('Status').locator('option').allTextContents();
    expect(statuses).toEqual(expect.arrayContaining(['any', 'new', 'ftd', 'rejected']));
    await atBothWidths(page, 'leads');
    await cardsOnPhone(page, table, 'Phone');

    // The CSV link is exactly the filtered list, once a range of at most 31 days is chosen.
    await page.getByLabel('External id').fill('acme-2');
    const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    await page.getByLabel('From (UTC)').fill(local(Date.now() - 3_600_000));
    await page.getByLabel('To (UTC)').fill(local(Date.now() + 3_600_000));
    await page.getByRole('button', { name: 'Filter' }).click();
    await table.getByRole('row', { name: /acme-1/ }).waitFor({ state: 'detached' });
    const href = (await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href'))!;
    const csv = (await (await page.request.get(`${base()}${href}`)).text()).trimEnd().split('\r\n');
    expect(csv.slice(1).map((l) => l.split(',')[1])).toEqual(['acme-2']);
    await table.getByRole('link', { name: /^le-/ }).click();
    await page.getByRole('heading', { level: 1, name: /^Lead le-/ }).waitFor();
    await page
      .getByRole('region', { name: 'Timeline' })
      .getByRole('row', { name: /lead\.accepted/ })
      .waitFor();
    await atBothWidths(page, 'lead');

    await goToHash(page, `#/leads/${other.leadId}`);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('(not_found)');
    expect(await page.content()).not.toContain('other-secret-1');
  });

  it('shows a dead callback with its attempts and retries it from the page', async () => {
    const dead = await until(
      async () =>
        (await manager.get<{ items: { id: string }[] }>(`/api/deliveries?affiliate_id=${acme.id}&state=dead`)).body
          .items[0],
      30_000,
      'a dead callback',
    );
    await openSection(page, 'Callbacks and postbacks');
    await page.getByRole('heading', { name: 'Callback endpoint' }).waitFor();
    await page.getByLabel('State').selectOption('dead');
    await page.getByRole('button', { name: 'Filter' }).click();
    const table = page.getByRole('region', { name: 'Deliveries' });
    await table.getByRole('button', { name: `Attempts of ${dead.id}` }).click();
    const attempts = page.getByRole('table', { name: 'Attempts' });
    await expect(attempts.textContent()).resolves.toMatch(/404.*no such hook/s);
    await atBothWidths(page, 'deliveries');

    receiver.respond('/acme', status(200, 'thanks'));
    await table.getByRole('button', { name: `Retry ${dead.id}` }).click();
    await page.getByText(`Delivery ${dead.id} queued again`).waitFor();
    await until(
      async () => (await manager.get<{ state: string }>(`/api/deliveries/${dead.id}`)).body.state === 'delivered',
      30_000,
      'the retried callback delivered',
    );
    await page.getByRole('button', { name: 'Send a test callback' }).click();
    await page.getByRole('status').filter({ hasText: 'Delivered' }).waitFor();
  });

  it('rotates the API key with a grace period: the new key shown once works, and so does the old one for now', async () => {
    await openSection(page, 'Integration');
    await expect(page.locator('dl.facts').textContent()).resolves.toContain('/api/v1/inbound');
    await atBothWidths(page, 'integration');
    await page.getByLabel('The old value keeps working for').selectOption('3600');
    await page.getByRole('button', { name: 'Rotate', exact: true }).click();
    const shown = page.getByRole('region', { name: 'Your new secrets' });
    const key = await shown.getByLabel('API key', { exact: true }).inputValue();
    expect(key).not.toBe(acme.creds.api_key);
    await shown.getByRole('button', { name: 'Copy API key' }).click();
    await shown.getByText('Copied').waitFor();
    expect((await new PartnerClient(app.url, { ...acme.creds, api_key: key }).leadStatus('acme-1')).status).toBe(200);
    expect((await new PartnerClient(app.url, acme.creds).leadStatus('acme-1')).status).toBe(200);
    await shown.getByRole('button', { name: 'Done, hide the secrets' }).click();
    expect(await page.content()).not.toContain(key);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);
  });

  it('changes the events called back', async () => {
    const events = page.getByRole('group', { name: /^Events/ });
    for (const event of ['lead.accepted', 'lead.ftd']) await events.getByLabel(event, { exact: true }).check();
    await page.getByRole('button', { name: 'Save callback settings' }).click();
    await page.getByText('Callback settings saved.').waitFor();
    await page.locator('dl.facts').getByText('lead.accepted, lead.ftd', { exact: true }).waitFor();
    const partner = await manager.get<{ callback_events: string[] }>(`/api/affiliates/${acme.id}`);
    expect(partner.body.callback_events).toEqual(['lead.accepted', 'lead.ftd']);
  });

  it('invites a viewer on the Users page (the link shown once), who sets up a passkey, sees no action, and signs in with the passkey', async () => {
    await openSection(page, 'Users');
    await page.getByLabel('Email', { exact: true }).fill('vic@acme.example');
    await page.getByLabel('Name', { exact: true }).fill('Vic Viewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = await page
      .getByRole('region', { name: 'Invitation for Vic Viewer' })
      .getByLabel('One-time link', { exact: true })
      .inputValue();
    await page
      .getByRole('region', { name: 'Users' })
      .getByRole('row', { name: /Vic Viewer.*invited/ })
      .waitFor();
    await atBothWidths(page, 'users');
    await page.getByRole('button', { name: 'Done, hide the link' }).click();

    // The viewer sets up a passkey (Chromium's virtual authenticator) instead of an authenticator app.
    const viewerContext = await browser.newContext({ viewport: { width: WIDTHS[0], height: 900 } });
    const viewer = await watchedBy(viewerContext, browserErrors);
    const cdp = await viewerContext.newCDPSession(viewer);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    await viewer.goto(link.replace('127.0.0.1', 'localhost'));
    await setPassword(viewer, 'a partner viewer passphrase');
    await viewer.getByRole('button', { name: 'Add a passkey' }).click();
    await portalNav(viewer).waitFor();
    expect((await portalNav(viewer).getByRole('link').allTextContents()).map((t) => t.trim())).toEqual([
      'Overview',
      'Leads',
      'Callbacks and postbacks',
      'Integration',
    ]);
    for (const [section, hidden] of [
      ['Callbacks and postbacks', ['Retry all dead', 'Send a test callback', 'Replay']],
      ['Integration', ['Rotate', 'Save callback settings']],
    ] as const) {
      await openSection(viewer, section);
      for (const name of hidden) expect(await viewer.getByRole('button', { name, exact: true }).count()).toBe(0);
    }
    await viewer.getByRole('button', { name: 'Vic Viewer (partner viewer)' }).click();
    await viewer.getByRole('button', { name: 'Sign out', exact: true }).click();
    await viewer.getByLabel('Email', { exact: true }).fill('vic@acme.example');
    await viewer.getByLabel('Password', { exact: true }).fill('a partner viewer passphrase');
    await viewer.getByRole('button', { name: 'Sign in', exact: true }).click();
    await viewer.getByRole('button', { name: 'Use a passkey' }).click();
    await portalNav(viewer).waitFor();
    await viewerContext.close();
  });

  it('had no script error, no blocked resource and no stored secret on any page', () => {
    expect(browserErrors).toEqual([]);
  });
});

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { zonedDateTime } from '../../src/shared/local-time';
import { CallbackReceiver } from '../support/callback-receiver';
import { launchChromium, watched } from '../support/console-browser';
import { ManagerClient } from '../support/manager-client';
import { servicesOf } from '../support/manager-services';
import { PartnerClient, type PartnerCredentials } from '../support/partner-client';
import { acceptPortalLink, openSection } from '../support/portal-browser';
import { inviteFirstAdmin } from '../support/portal-client';
import { atBothWidths, cardsOnPhone, WIDTHS } from '../support/portal-widths';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The portal's everyday parts in Chromium at 1280 and 390 px, for a sandbox partner (mode test)
// with caps: the custom range and the caps on the overview, the lead list's filters and CSV link,
// the person's own time zone read by the lead list, the replay form and the people's sign-ins, a
// test lead sent from the Integration page through the partner API, with its answer and its
// callback, and the portal's favicon. PORTAL_SCREENSHOTS=1 writes the screenshots docs/partners.md
// shows.
const PASSWORD = 'a sandbox admin passphrase';
const ZONE = 'Asia/Tokyo';

let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const browserErrors: string[] = [];
const admin = { email: 'sam@sandbox.example', password: PASSWORD, secret: '' };
let sandbox: { id: string; creds: PartnerCredentials };

// WebCrypto, which signs the test lead, wants a secure context: the browser opens the app as localhost.
const base = () => app.url.replace('127.0.0.1', 'localhost');
const local = (ms: number, zone: string) => zonedDateTime(new Date(ms), zone).slice(0, 16);

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  const created = await servicesOf(app.runtime).partners.create({
    name: 'Sandbox Media',
    mode: 'test',
    callback_url: receiver.url('/sandbox'),
    caps: { daily: 50, hourly: 20, countries: { GB: { daily: 10 } } },
  });
  receiver.route('/sandbox', created.secrets.callback_secret);
  sandbox = { id: created.partner.id, creds: created.secrets };
  const client = new PartnerClient(app.url, created.secrets);
  for (const [i, sub] of ['sub-a', 'sub-a', 'sub-b'].entries()) {
    const sent = await client.submitLead({
      external_id: `sb-${i + 1}`,
      phone: `+4479111235${10 + i}`,
      country: 'GB',
      source: 'search',
      sub_id: sub,
      click_id: `click-${i + 1}`,
    });
    expect(sent.body).toMatchObject({ status: 'accepted' });
  }
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: WIDTHS[0], height: 900 } });
  page = await watched(context, browserErrors);
  const invited = await inviteFirstAdmin(app.url, sandbox.id, { email: admin.email, name: 'Sam Sandbox' });
  admin.secret = await acceptPortalLink(page, `${base()}/portal/#/link/${invited.link.token}`, PASSWORD);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await app?.destroy();
});

describe("the portal's everyday parts", () => {
  it('shows the caps with their use and a custom range of days', async () => {
    const caps = page.getByRole('region', { name: 'Caps' });
    await caps.getByRole('row', { name: /GB/ }).waitFor();
    expect(await caps.textContent()).toMatch(/50/);
    const today = new Date().toISOString().slice(0, 10);
    const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('First day').fill(weekAgo);
    await page.getByLabel('Last day').fill(today);
    await page.getByRole('button', { name: 'Show these days' }).click();
    await page.locator(`[href="/portal/api/overview.csv?from=${weekAgo}&to=${today}"]`).waitFor();
    await atBothWidths(page, 'overview-range');
  });

  it('filters the lead list by sub_id and a range, offers the CSV of it, and shows cards on a phone', async () => {
    await openSection(page, 'Leads');
    const table = page.getByRole('region', { name: 'Leads' });
    await table.getByRole('row', { name: /sb-3/ }).waitFor();
    await page.getByLabel('Sub id').fill('sub-a');
    await page.getByLabel('From (UTC)').fill(local(Date.now() - 3_600_000, 'UTC'));
    await page.getByLabel('To (UTC)').fill(local(Date.now() + 3_600_000, 'UTC'));
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: 'Download CSV' }).waitFor();
    await until(async () => !(await table.textContent())?.includes('sb-3'), 10_000, 'the filtered list');
    expect((await table.getByRole('row').allTextContents()).slice(1).map((r) => r.match(/sb-\d/)?.[0])).toEqual([
      'sb-2',
      'sb-1',
    ]);
    const csv = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    expect(csv).toContain('sub_id=sub-a');
    await atBothWidths(page, 'lead-filters');
    await cardsOnPhone(page, table, 'Received');
  });

  it("reads the lead list's range and times in the person's own time zone, once they choose it", async () => {
    await page.getByRole('button', { name: 'Sam Sandbox (partner admin)' }).click();
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.getByLabel('Your time zone').selectOption(ZONE);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(`Times are now shown in ${ZONE}.`).waitFor();
    await atBothWidths(page, 'time-zone');

    await openSection(page, 'Leads');
    // An hour ago to in an hour, typed in Tokyo: read as UTC it would lie 9 hours ahead, with no lead in it.
    await page.getByLabel(`From (${ZONE})`).fill(local(Date.now() - 3_600_000, ZONE));
    await page.getByLabel(`To (${ZONE})`).fill(local(Date.now() + 3_600_000, ZONE));
    await page.getByRole('button', { name: 'Filter' }).click();
    const table = page.getByRole('region', { name: 'Leads' });
    await table.getByRole('row', { name: /sb-1/ }).waitFor();
    const lead = (await manager.get<{ id: string; created_at: string }>(`/api/leads/${await leadIdOf('sb-1')}`)).body;
    const received = zonedDateTime(new Date(lead.created_at), ZONE).replace('T', ' ').slice(0, 19);
    expect(await table.getByRole('row', { name: /sb-1/ }).textContent()).toContain(received);
    // The lead's own page too.
    await table.getByRole('link', { name: lead.id }).click();
    await page.getByRole('columnheader', { name: `At (${ZONE})` }).waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain(`${received} ${ZONE}`);
  });

  it("reads the replay form's range and shows the endpoint's and the people's times in the person's own time zone", async () => {
    const shownIn = (at: string) => `${zonedDateTime(new Date(at), ZONE).replace('T', ' ').slice(0, 19)} ${ZONE}`;
    const delivered = await until(
      async () => {
        const res = await page.request.get(`${base()}/portal/api/endpoints`);
        const { items } = (await res.json()) as { items: { kind: string; last_success_at: string | null }[] };
        return items.find((e) => e.kind === 'callback')?.last_success_at;
      },
      20_000,
      'a callback delivered',
    );
    await openSection(page, 'Callbacks and postbacks');
    await page.getByRole('region', { name: 'Callback endpoint' }).getByText(shownIn(delivered)).waitFor();
    const form = page.getByRole('form', { name: 'Replay' });
    const [from, to] = [Date.now() - 3_600_000, Date.now()].map((ms) => local(ms, ZONE));
    await form.getByLabel(`From (${ZONE})`).fill(from!);
    await form.getByLabel(`To (${ZONE})`).fill(to!);
    await form.getByRole('button', { name: 'Replay' }).click();
    const shown = (t: string) => `${t.replace('T', ' ')}:00`;
    await page
      .getByRole('status')
      .filter({ hasText: `(${shown(from!)} to ${shown(to!)} ${ZONE})` })
      .waitFor();

    await openSection(page, 'Users');
    await page.getByRole('columnheader', { name: `Last sign-in (${ZONE})` }).waitFor();
    const users = (await (await page.request.get(`${base()}/portal/api/users`)).json()) as {
      items: { email: string; last_sign_in_at: string }[];
    };
    const signedIn = users.items.find((u) => u.email === admin.email)!.last_sign_in_at;
    const inZone = zonedDateTime(new Date(signedIn), ZONE).replace('T', ' ').slice(0, 19);
    expect(await page.getByRole('row', { name: /Sam Sandbox/ }).textContent()).toContain(inZone);
    // And on their own account page.
    await page.getByRole('button', { name: 'Sam Sandbox (partner admin)' }).click();
    await page.getByRole('link', { name: 'Your account' }).click();
    await page.locator('dl.facts').getByText(`${inZone} ${ZONE}`).waitFor();
  });

  it('sends a test lead through the partner API from the page, and shows its answer and its callback', async () => {
    await openSection(page, 'Integration');
    const form = page.getByRole('form', { name: 'Test lead' });
    await form.getByLabel('API key').fill(sandbox.creds.api_key);
    await form.getByLabel('HMAC secret').fill(sandbox.creds.hmac_secret);
    await form.getByLabel('External id').fill('from-the-page');
    await form.getByRole('button', { name: 'Send test lead' }).click();
    const answer = page.getByRole('status').filter({ hasText: 'HTTP 200' });
    await answer.getByText('accepted').waitFor();
    const id = (await answer.locator('a.mono').textContent())!;
    // Three leads sent before, and this one: each told as lead.accepted.
    const callbacks = await receiver.waitFor('/sandbox', 4);
    expect(callbacks.find((c) => c.body.internal_id === id)).toMatchObject({ signatureValid: true });
    await until(
      async () => {
        await page.getByRole('button', { name: 'Refresh callbacks' }).click();
        return /callback delivered/.test(
          (await page.getByRole('region', { name: 'What we told you' }).textContent()) ?? '',
        );
      },
      20_000,
      "the test lead's callback delivered",
    );
    await atBothWidths(page, 'test-lead');

    // A test lead: marked test, out of the reports, and counted apart from live leads' caps.
    expect((await manager.get(`/api/leads/${id}`)).body).toMatchObject({ test: true, affiliate_id: sandbox.id });
    const redis = app.runtime.redis;
    const day = new Date().toISOString().slice(0, 10);
    expect(await redis.get(`cap:test:${sandbox.id}:all:partner_daily:${day}`)).toBe('4');
    expect(await redis.get(`cap:${sandbox.id}:all:partner_daily:${day}`)).toBeNull();
  });

  it('has a favicon of its own', async () => {
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    const served = await page.request.get(new URL(icon!, page.url()).href);
    expect([served.status(), served.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
    expect(await served.text()).toContain('<svg');
  });

  it('had no script error and no blocked resource on any page', () => {
    expect(browserErrors).toEqual([]);
  });
});

async function leadIdOf(externalId: string): Promise<string> {
  const page = await manager.get<{ items: { id: string; external_id: string }[] }>(
    `/api/leads?affiliate_id=${sandbox.id}&limit=50`,
  );
  return page.body.items.find((l) => l.external_id === externalId)!.id;
}

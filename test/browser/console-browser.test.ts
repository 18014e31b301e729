import type { Browser, BrowserContext, Page } from 'playwright-core';
import { goToHash } from '../support/browser-hash';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { pageWidths, section, shot, signInAsOwner, watched as watchedBy } from '../support/console-browser';
import { consolePages, deliveryOf as deliveryIn, startConsoleStack, WIDTHS } from '../support/console-stack';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import type { TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// The manager console in a real browser (Debian's Chromium through playwright-core), against the
// whole pipeline: a partner created on the page sends a real lead, its callback endpoint refuses,
// the delivery dies on a short retry schedule, and the manager finds and retries it on the page.
// Screenshots of every page at 1280 and 390 px go to test-artifacts/console/.
const PHONE = '+447911123456';
const EMAIL = 'console.lead@example.com';

let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let browser: Browser;
let page: Page;
// Console errors of every page (a CSP violation, a failed script) fail the last test.
const browserErrors: string[] = [];

beforeAll(async () => {
  // An endpoint failing every attempt for 2 s (and 3 in a row) is paused; the main partner's endpoint
  // fails twice only, so it never is.
  ({ app, browser, page } = await startConsoleStack(browserErrors));
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  receiver.route('/hook', 'not checked here', status(404, 'no such hook'));
  await signInAsOwner(page, app);
});

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await app?.destroy();
});

const watched = (context: BrowserContext) => watchedBy(context, browserErrors);
const deliveryOf = (partnerId: string, state: string) => deliveryIn(manager, partnerId, state);

describe('the manager console', () => {
  let partner: { id: string; api_key: string; hmac_secret: string; callback_secret: string };
  let leadId: string;

  it('creates a partner and shows its secrets once, with copy buttons; none stays on the page', async () => {
    await section(page, 'Partners');
    await page.getByRole('button', { name: 'New partner' }).click();
    await page.getByLabel('Name').fill('Console partner');
    await page.getByLabel('Callback URL').fill(receiver.url('/hook'));
    await page.getByRole('button', { name: 'Create partner' }).click();
    const secrets = page.getByRole('region', { name: /Partner Console partner created/ });
    await secrets.waitFor();
    const read = (label: string) => secrets.getByLabel(label, { exact: true }).inputValue();
    partner = {
      id: (await page.getByRole('heading', { name: /created/ }).textContent())!.match(/\((pa-[0-9a-f]+)\)/)![1]!,
      api_key: await read('API key'),
      hmac_secret: await read('HMAC secret'),
      callback_secret: await read('Callback secret'),
    };
    expect(partner.api_key).toMatch(/^lk/);
    for (const name of ['Copy API key', 'Copy HMAC secret', 'Copy Callback secret'])
      await secrets.getByRole('button', { name }).waitFor();
    await secrets.getByRole('button', { name: 'Copy HMAC secret' }).click();
    await secrets.getByText('Copied').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(partner.hmac_secret);
    await shot(page, 'partner-created');

    await page.getByRole('button', { name: 'Done, hide the secrets' }).click();
    await shot(page, 'partners');
    await page.getByRole('link', { name: 'Console partner' }).click();
    await page.getByRole('heading', { level: 1, name: 'Partner Console partner' }).waitFor();
    const visible = await page.evaluate(
      () =>
        document.documentElement.outerHTML +
        [...document.querySelectorAll('input, textarea')].map((e) => (e as HTMLInputElement).value).join(),
    );
    for (const secret of [partner.api_key, partner.hmac_secret, partner.callback_secret])
      expect(visible).not.toContain(secret);
  });

  it("edits settings and shows the API's own validation message", async () => {
    await page.getByLabel('Blocked countries').fill('gb');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const apiAnswer = await manager.patch<{ message: string }>(`/api/affiliates/${partner.id}`, {
      blocked_countries: ['gb'],
    });
    expect(apiAnswer.status).toBe(422);
    await expect(page.getByRole('alert').textContent()).resolves.toContain(apiAnswer.body.message);
    await page.getByLabel('Blocked countries').fill('XX');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect((await manager.get(`/api/affiliates/${partner.id}`)).body.blocked_countries).toEqual(['XX']);
    await shot(page, 'partner');
  });

  it('sends a test callback and shows the answer', async () => {
    await page.getByRole('button', { name: 'Send a test callback' }).click();
    await page.getByText('Not delivered: HTTP 404').waitFor();
    await expect(page.getByText('no such hook').first().isVisible()).resolves.toBe(true);
  });

  it('sees a dead delivery from the real pipeline, its attempts, and retries it', async () => {
    const sent = await new PartnerClient(app.url, partner).submitLead({
      external_id: 'console-1',
      phone: PHONE,
      email: EMAIL,
      country: 'GB',
    });
    expect(sent.body).toMatchObject({ status: 'accepted' });
    leadId = sent.body.id as string;
    const dead = await deliveryOf(partner.id, 'dead');

    await section(page, 'Deliveries');
    await page.getByLabel('State').selectOption('dead');
    await page.getByLabel('Partner id').fill(partner.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    const table = page.getByRole('region', { name: 'Deliveries' });
    await table.getByText('dead', { exact: true }).waitFor();
    await table.getByRole('button', { name: 'Attempts' }).click();
    const attempts = page.getByRole('table', { name: 'Attempts' });
    await attempts.waitFor();
    expect(await attempts.getByRole('row').count()).toBe(3); // header and two attempts: a 4xx gets one more
    await expect(attempts.textContent()).resolves.toContain('404');
    expect(await attempts.getByText('no such hook').count()).toBe(2); // each attempt's answer body
    await shot(page, 'deliveries-dead');

    receiver.respond('/hook', status(200, 'thanks'));
    await table.getByRole('button', { name: 'Retry', exact: true }).click();
    await page.getByText(`Delivery ${dead.id} queued again`).waitFor();
    await deliveryOf(partner.id, 'delivered');
    await page.getByLabel('State').selectOption('delivered');
    await page.getByRole('button', { name: 'Filter' }).click();
    await table.getByText('delivered', { exact: true }).waitFor();
    await shot(page, 'deliveries');

    // The time range is when each record was created, read as UTC: none of this partner's is from tomorrow on.
    await page.getByLabel('From (UTC)').fill(new Date(Date.now() + 86_400_000).toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/from=/);
    await table.getByText('No deliveries match.').waitFor();
  });

  it('finds the lead by le-<n> and by external id, with its history and events sent, never its phone or email', async () => {
    await section(page, 'Leads');
    await page.getByRole('textbox', { name: 'Lead id' }).fill(leadId);
    await page.getByRole('button', { name: 'Find by id' }).click();
    await page.getByRole('heading', { name: `Lead ${leadId}` }).waitFor();
    await page.getByRole('region', { name: 'Lead history' }).getByText('lead.accepted').waitFor();
    await page
      .getByRole('region', { name: 'Callbacks of this lead' })
      .getByText('delivered', { exact: true })
      .waitFor();
    const html = await page.content();
    for (const personal of [PHONE, EMAIL, '7911123456', 'console.lead']) expect(html).not.toContain(personal);
    await shot(page, 'lead');

    await page.getByRole('textbox', { name: 'Partner id' }).fill(partner.id);
    await page.getByRole('textbox', { name: 'External id' }).fill('console-1');
    await page.getByRole('button', { name: 'Find by external id' }).click();
    await page.waitForURL(/external_id=console-1/);
    await page.getByRole('heading', { name: `Lead ${leadId}` }).waitFor();
  });

  it("shows a partner's endpoint health, and resumes an endpoint paused by real failures", async () => {
    const health = page.getByRole('region', { name: 'Endpoint health' });
    const open = async (id: string) => {
      await goToHash(page, '#/partners');
      await goToHash(page, `#/partners/${id}`);
    };
    await open(partner.id);
    await health.getByText('Failures in a row').waitFor();
    await expect(health.textContent()).resolves.toContain('active');

    // A second partner whose endpoint answers 503 to everything: paused after ENDPOINT_PAUSE_AFTER_S.
    const down = await servicesOf(app.runtime).partners.create({
      name: 'Console down',
      callback_url: receiver.url('/down'),
    });
    receiver.route('/down', down.secrets.callback_secret, status(503, 'down for maintenance'));
    await new PartnerClient(app.url, down.secrets).submitLead({
      external_id: 'down-1',
      phone: '+447911123999',
      country: 'GB',
    });
    const healthOf = async () =>
      (await manager.get<{ state: string; held: number }>(`/api/affiliates/${down.partner.id}/endpoint-health`)).body;
    await until(async () => (await healthOf()).state === 'paused', 30_000, 'the endpoint to be paused');
    // A lead sent while paused: its callback is held, neither sent nor dead.
    await new PartnerClient(app.url, down.secrets).submitLead({
      external_id: 'down-2',
      phone: '+447911123998',
      country: 'GB',
    });
    await until(async () => (await healthOf()).held > 0, 20_000, 'a held callback');
    await open(down.partner.id);
    await health.getByText('callbacks held', { exact: false }).waitFor();
    await expect(health.textContent()).resolves.toContain('paused');
    await shot(page, 'endpoint-paused');
    receiver.respond('/down', status(200, 'back'));
    const resumed = page.waitForResponse(
      (r) => r.url().endsWith('/endpoint/resume') && r.request().method() === 'POST',
    );
    await health.getByRole('button', { name: 'Resume callbacks' }).click();
    expect((await resumed).status()).toBe(202);
    await until(async () => (await healthOf()).state === 'active', 20_000, 'the endpoint to be active again');
    await deliveryOf(down.partner.id, 'delivered'); // the held callback went out after the resume
  });

  it('rotates the key and shows the new one once', async () => {
    await goToHash(page, `#/partners/${partner.id}`);
    await page.getByRole('heading', { level: 1, name: 'Partner Console partner' }).waitFor();
    await page.getByRole('button', { name: 'Rotate API key' }).click();
    const fresh = await page
      .getByRole('region', { name: 'New credentials' })
      .getByLabel('API key', { exact: true })
      .inputValue();
    expect(fresh).toMatch(/^lk/);
    expect(fresh).not.toBe(partner.api_key);
    expect((await new PartnerClient(app.url, partner).leadStatus('console-1')).status).toBe(401);
  });

  it('lists agents, adds one, and shows the audit log of what was done', async () => {
    await section(page, 'Agents');
    await page.getByLabel('Name').fill('Console agent');
    await page.getByLabel('Countries').fill('GB');
    await page.getByRole('button', { name: 'Add agent' }).click();
    await page.getByRole('region', { name: 'Agents' }).getByText('Console agent').waitFor();
    await shot(page, 'agents');
    await section(page, 'Audit log');
    const log = page.getByRole('region', { name: 'Audit entries' });
    for (const action of ['partner.create', 'partner.update', 'delivery.retry', 'partner.rotate_key', 'agent.create'])
      await log.getByText(action, { exact: true }).first().waitFor();
    await shot(page, 'audit');
  });

  it('charts the last hour and the last 14 days from the stored read models', async () => {
    await section(page, 'Overview');
    const label = async (name: RegExp) => (await page.getByRole('img', { name }).getAttribute('aria-label')) ?? '';
    // console-1, then down-1 and down-2 of the endpoint-health test; console-1's callback died once
    // (down-1's may have too, before its endpoint was paused). Each process stores its minutes every few seconds.
    await until(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (
          /accepted 3\b/.test(await label(/^Leads by outcome/)) &&
          /dead [12]\b/.test(await label(/^Callbacks by outcome/))
        );
      },
      20_000,
      'the last hour in the overview',
    );
    // Today's bar of the 14 days, from the stored reports (counted a moment after the intake answers).
    const today = `${new Date().toISOString().slice(0, 10)}: received 3, accepted 3`;
    await until(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return ((await page.getByRole('img', { name: /^Leads per day/ }).getAttribute('aria-label')) ?? '').includes(
          today,
        );
      },
      20_000,
      "today's leads in the per-day trend",
    );
    await shot(page, 'overview');
  });

  it('fits a 390 px phone screen on every page without sideways scrolling of the page', async () => {
    const phone = await browser.newContext({
      viewport: { width: WIDTHS.phone, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const p = await watched(phone);
    await p.goto(`${app.url}/console/`);
    await shot(p, 'sign-in');
    await signInAsOwner(p, app);
    await p.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const pages = consolePages(partner.id, leadId);
    for (const [name, hash, heading] of pages) {
      await goToHash(p, hash);
      await p.getByRole('heading', { level: 1, name: heading }).waitFor();
      await p.waitForTimeout(400); // the page's data arrives after its title
      // A phone widens its layout viewport (zooming out) when anything sticks out, so both must stay at 390.
      const widths = await pageWidths(p);
      expect({ name, widths }).toEqual({ name, widths: [WIDTHS.phone, WIDTHS.phone] });
      await shot(p, name);
    }
    await phone.close();
    expect(browserErrors).toEqual([]);
  });
});

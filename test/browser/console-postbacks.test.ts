import type { Browser, Locator, Page } from 'playwright-core';
import { CallbackReceiver, status } from '../support/callback-receiver';
import {
  launchChromium,
  pageWidths,
  section,
  shot,
  signInAsOwner,
  unnamedControls,
  watched,
} from '../support/console-browser';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// A partner's postbacks on the console's partner page, in a real browser against the whole app: a
// template naming {phone} refused by the live preview, a valid one previewed and saved, a test
// postback received as a GET by a real HTTP receiver, a write-only token saved (never shown again),
// and a real lead's postback shown with its kind and masked URL in the delivery table.
const TOKEN = 'pb-secret-7f3a91c2';

let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let browser: Browser;
let page: Page;
const browserErrors: string[] = [];
let partner: { id: string; api_key: string; hmac_secret: string };

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  receiver.route('/pb', 'not used: postbacks are GETs', status(200, 'tracked'));
  partner = (await manager.post<typeof partner>('/api/affiliates', { name: 'Postback partner' })).body;
  browser = await launchChromium();
  page = await watched(await browser.newContext({ viewport: { width: 1280, height: 900 } }), browserErrors);
});

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await app?.destroy();
});

const panel = (): Locator => page.getByRole('region', { name: 'Postbacks', exact: true });
const previewOf = (id: string): Locator => page.locator(`#${id}`);
const pb = () => receiver.url('/pb');

describe('postbacks on the partner page', () => {
  it('opens the partner: no postbacks, no token, no tracker health yet', async () => {
    await signInAsOwner(page, app);
    await section(page, 'Partners');
    await page.getByRole('link', { name: 'Postback partner' }).click();
    await page.getByRole('heading', { level: 1, name: 'Partner Postback partner' }).waitFor();
    await panel().getByText('No token', { exact: true }).waitFor();
    await expect(panel().getByRole('button', { name: 'Send a test postback' }).isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('region', { name: 'Tracker health (postbacks)' }).count()).resolves.toBe(0);
  });

  it('previews as the manager types: {phone} is refused by name, a valid template shows its URL', async () => {
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/postback-preview')) asked.push(r.postData() ?? '');
    });
    const url = panel().getByLabel('Postback URL template');
    await url.pressSequentially(`${pb()}?subid={click_id}&p={phone}`, { delay: 15 });
    await previewOf('pb-url-preview').getByText('names {phone}: personal data is never sent in a postback').waitFor();
    // Debounced: one request for the whole template (two at most, should the browser stall mid-typing).
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(asked.length).toBeLessThanOrEqual(2);
    expect(JSON.parse(asked.at(-1)!)).toMatchObject({
      template: `${pb()}?subid={click_id}&p={phone}`,
      event: 'lead.accepted',
    });

    await url.fill(`${pb()}?subid={click_id}&status={status}&tid={event_id}`);
    await previewOf('pb-url-preview').getByText(`${pb()}?subid=sample-click&status=new&tid=le-0%3Apreview`).waitFor();
    // The typed status mapping and the chosen event go into the preview.
    await panel().getByLabel('Postback status mapping (JSON)').fill('{"new": "lead", "ftd": "sale"}');
    await panel().getByLabel('Preview for event').selectOption('lead.ftd');
    await previewOf('pb-url-preview').getByText(`${pb()}?subid=sample-click&status=sale&tid=le-0%3Apreview`).waitFor();

    await panel().getByRole('button', { name: 'Add a template for one event' }).click();
    await panel().getByLabel('Event', { exact: true }).selectOption('lead.rtd');
    await panel()
      .getByLabel('URL template for lead.rtd')
      .fill(`${pb()}?subid={click_id}&status=rebill&rtd={our_status}`);
    await previewOf('pb-t0-preview').getByText(`${pb()}?subid=sample-click&status=rebill&rtd=rtd`).waitFor();
    await shot(page, 'partner-postbacks-preview');
  });

  it('saves the postbacks with PATCH; the tracker health appears', async () => {
    await panel().getByRole('checkbox', { name: 'lead.accepted' }).check();
    await panel().getByRole('checkbox', { name: 'lead.rtd' }).check();
    await panel().getByRole('button', { name: 'Save postbacks' }).click();
    await panel().getByText('Postbacks saved.').waitFor();
    const saved = (await manager.get<Record<string, unknown>>(`/api/affiliates/${partner.id}`)).body;
    expect(saved.postbacks).toEqual({
      url: `${pb()}?subid={click_id}&status={status}&tid={event_id}`,
      templates: [{ event: 'lead.rtd', url: `${pb()}?subid={click_id}&status=rebill&rtd={our_status}` }],
      events: ['lead.accepted', 'lead.rtd'],
      status_mapping: { new: 'lead', ftd: 'sale' },
    });
    expect(saved.postback_token_set).toBe(false);
    await page.getByRole('region', { name: 'Tracker health (postbacks)' }).getByText('Failures in a row').waitFor();
  });

  it('sends a test postback that the receiver gets as a GET, and shows the answer', async () => {
    await panel().getByLabel('Event of the test postback').selectOption('lead.accepted');
    await panel().getByRole('button', { name: 'Send a test postback' }).click();
    await panel().getByText('Delivered: HTTP 200').waitFor();
    await panel().getByText(`GET ${pb()}?subid=sample-click&status=lead&tid=le-0`).waitFor();
    await panel().getByText('tracked').waitFor();
    const [got] = await receiver.waitFor('/pb', 1);
    expect(got!.method).toBe('GET');
    expect(got!.url).toMatch(/^\/pb\?subid=sample-click&status=lead&tid=le-0%3A/);
  });

  it('saves a write-only token: "Token set", never shown again, {token} previewed as ***', async () => {
    await panel().getByLabel('Postback token').fill(TOKEN);
    await panel().getByLabel('Sign each postback').check();
    await panel().getByRole('button', { name: 'Save postbacks' }).click();
    await panel().getByText('Token set', { exact: true }).waitFor();
    const saved = (
      await manager.get<{ postback_token_set: boolean; postbacks: { sign?: boolean } }>(`/api/affiliates/${partner.id}`)
    ).body;
    expect(saved.postback_token_set).toBe(true);
    expect(saved.postbacks.sign).toBe(true);
    expect(JSON.stringify(saved)).not.toContain(TOKEN);
    const visible = await page.evaluate(
      () =>
        document.documentElement.outerHTML +
        [...document.querySelectorAll('input, textarea')].map((e) => (e as HTMLInputElement).value).join(),
    );
    expect(visible).not.toContain(TOKEN);

    await panel().getByLabel('Postback URL template').fill(`${pb()}?subid={click_id}&status={status}&key={token}`);
    await previewOf('pb-url-preview').getByText('key=***').waitFor();
    await panel().getByRole('button', { name: 'Save postbacks' }).click();
    await until(
      async () =>
        (
          await manager.get<{ postbacks: { url: string } }>(`/api/affiliates/${partner.id}`)
        ).body.postbacks.url.endsWith('key={token}'),
      10_000,
      'the {token} template saved',
    );
    await expect(panel().getByText('Token set', { exact: true }).isVisible()).resolves.toBe(true); // kept: not given again
    expect(await unnamedControls(page)).toEqual([]);
  });

  it("shows a real lead's postback with its kind and masked URL in the delivery table", async () => {
    const sent = await new PartnerClient(app.url, partner).submitLead({
      external_id: 'pb-1',
      phone: '+447911123400',
      country: 'GB',
      click_id: 'click-77',
    });
    expect(sent.body).toMatchObject({ status: 'accepted' });
    const got = (await receiver.waitFor('/pb', 2))[1]!;
    expect(got.method).toBe('GET');
    expect(got.url).toBe(`/pb?subid=click-77&status=lead&key=${TOKEN}`);
    await until(
      async () =>
        (await manager.get<{ items: unknown[] }>(`/api/deliveries?affiliate_id=${partner.id}&state=delivered`)).body
          .items.length > 0,
      20_000,
      'the postback delivered',
    );

    await page.evaluate((h) => {
      location.hash = h;
    }, `#/deliveries?affiliate_id=${partner.id}`);
    await page.getByRole('region', { name: 'Tracker health (postbacks)' }).getByText('Failures in a row').waitFor();
    const table = page.getByRole('region', { name: 'Deliveries' });
    await table.getByText('postback', { exact: true }).first().waitFor();
    await table.getByRole('button', { name: 'Attempts' }).first().click();
    const attempts = page.getByRole('table', { name: 'Attempts' });
    await attempts.getByText(`${pb()}?subid=click-77&status=lead&key=***`).waitFor();
    expect(await page.content()).not.toContain(TOKEN);
    await shot(page, 'deliveries-postback');
  });

  it('refuses to clear the token while a template names {token}, with the API message', async () => {
    await page.evaluate((h) => {
      location.hash = h;
    }, `#/partners/${partner.id}`);
    await panel().getByRole('button', { name: 'Clear the token' }).click();
    await expect(panel().getByRole('alert').textContent()).resolves.toContain(
      'names {token}, but no postback token is set',
    );
    expect(
      (await manager.get<{ postback_token_set: boolean }>(`/api/affiliates/${partner.id}`)).body.postback_token_set,
    ).toBe(true);
  });

  it('fits a 390 px phone screen with the postbacks shown', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p = await watched(phone, browserErrors);
    await signInAsOwner(p, app);
    await p.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await p.evaluate((h) => {
      location.hash = h;
    }, `#/partners/${partner.id}`);
    await p.getByRole('region', { name: 'Tracker health (postbacks)' }).waitFor();
    await p.locator('#pb-url-preview').getByText('key=***').waitFor();
    expect(await pageWidths(p)).toEqual([390, 390]);
    await shot(p, 'partner-postbacks');
    await phone.close();
    expect(browserErrors).toEqual([]);
  });
});

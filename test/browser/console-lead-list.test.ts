import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import type { AgentAction, Deposit } from '../../src/shared/schemas';
import {
  launchChromium,
  pageWidths,
  section,
  shot,
  signInAsOwner,
  unnamedControls,
  watched,
} from '../support/console-browser';
import { produce } from '../support/intake-commands';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The console's lead list in a real browser, over leads sent through the whole pipeline: two
// partners' signed requests (accepted, rejected by a blocked country, left new for want of an
// agent), an agent's contact and a deposit from the CRM topics. Filters, cursor pages, a lead opened.
let app: TestApp;
let manager: ManagerClient;
let browser: Browser;
let page: Page;
const browserErrors: string[] = [];
const leads: Record<string, string> = {};
let alpha: string;
let beta: string;
let phone = 10000;

type Row = { id: string; status: string };

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  manager = new ManagerClient(app.url);
  const partner = async (name: string, settings: object = {}) =>
    (await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', { name, ...settings }))
      .body;
  const a = await partner('List Alpha', { blocked_countries: ['FR'] });
  const b = await partner('List Beta');
  alpha = a.id;
  beta = b.id;
  const agent = (await manager.post<{ id: string }>('/api/agents', { name: 'List agent', countries: ['GB'] })).body.id;

  // One at a time, so creation order is list order: a1 oldest. GB goes to the agent, DE waits for one.
  const send = async (key: string, creds: typeof a, country: string, expected: string) => {
    const sent = await new PartnerClient(app.url, creds).submitLead({
      external_id: key,
      phone: `+4479112${++phone}`,
      email: `${key}@example.com`,
      country,
    });
    expect(sent.body.status).toBe(expected);
    // A rejected lead is stored but its answer names no id: found by its external id.
    leads[key] =
      (sent.body.id as string | null) ??
      (await manager.get<{ id: string }>(`/api/affiliates/${creds.id}/leads/${key}`)).body.id;
  };
  for (let i = 1; i <= 9; i++) await send(`a${i}`, a, 'GB', 'accepted');
  await new Promise((r) => setTimeout(r, 1100)); // a whole second between a9 and a10, for the time range
  await send('a10', a, 'DE', 'accepted');
  await send('a11', a, 'FR', 'rejected');
  await send('b1', b, 'GB', 'accepted');
  await send('b2', b, 'GB', 'accepted');

  const action: AgentAction = {
    action_id: randomUUID(),
    lead_id: leads.a2!,
    agent_id: agent,
    status: 'contacted',
    occurred_at: new Date().toISOString(),
  };
  await produce(app.runtime, 'agentActions', [action], () => action.lead_id);
  const deposit: Deposit = {
    deposit_id: randomUUID(),
    lead_id: leads.a3!,
    type: 'deposit',
    amount: '250.00',
    currency: 'EUR',
    occurred_at: new Date().toISOString(),
  };
  await produce(app.runtime, 'deposits', [deposit], () => deposit.lead_id);
  await until(
    async () => {
      const rows = (await manager.get<{ items: Row[] }>(`/api/leads?affiliate_id=${alpha}&limit=200`)).body.items;
      return (
        rows.find((r) => r.id === leads.a2)?.status === 'contacted' &&
        rows.find((r) => r.id === leads.a3)?.status === 'ftd'
      );
    },
    30_000,
    'the CRM changes to reach the list',
  );

  browser = await launchChromium();
  page = await watched(await browser.newContext({ viewport: { width: 1280, height: 900 } }), browserErrors);
  await signInAsOwner(page, app);
  await section(page, 'Leads');
});

afterAll(async () => {
  await browser?.close();
  await app?.destroy();
});

const table = () => page.getByRole('region', { name: 'Leads', exact: true });
const shownIds = async () => await table().locator('tbody tr td:first-child a').allTextContents();
const filters = () => page.getByRole('form', { name: 'Filter leads' });

async function show(fill: Record<string, string>, depositorsOnly = false): Promise<void> {
  const form = filters();
  for (const label of ['Partner', 'Status', 'Country', 'Source', 'From (UTC)', 'To (UTC)'])
    await form.getByLabel(label, { exact: true }).fill(fill[label] ?? '');
  await form.getByLabel('Per page').selectOption(fill['Per page'] ?? '50');
  await form.getByLabel('Depositors only').setChecked(depositorsOnly);
  const answered = page.waitForResponse((r) => r.url().includes('/api/leads?'));
  await form.getByRole('button', { name: 'Show leads' }).click();
  await answered;
}

// The table shows exactly these leads, in this order (once the page's answer is drawn).
async function expectRows(keys: string[]): Promise<void> {
  const want = keys.map((k) => leads[k]!);
  await until(
    async () => JSON.stringify(await shownIds()) === JSON.stringify(want),
    10_000,
    `rows ${keys.join(', ')}`,
  ).catch(() => undefined);
  expect(await shownIds()).toEqual(want);
}

const newestFirst = (...keys: string[]) => keys.reverse();
const alphaAll = Array.from({ length: 11 }, (_, i) => `a${i + 1}`);

describe('the lead list', () => {
  it("lists every partner's leads newest first, without personal data", async () => {
    await expectRows(newestFirst(...alphaAll, 'b1', 'b2'));
    const html = await page.content();
    for (const personal of ['@example.com', '+4479112', '79112']) expect(html).not.toContain(personal);
    expect(await unnamedControls(page)).toEqual([]);
    await shot(page, 'lead-list');
  });

  it('filters by partner, then by status: accepted, rejected, waiting, contacted, FTD', async () => {
    await show({ Partner: beta });
    await expectRows(['b2', 'b1']);
    await show({ Partner: alpha, Status: 'rejected' });
    await expectRows(['a11']);
    await expect(table().getByRole('row').nth(1).textContent()).resolves.toContain('FR');
    await show({ Partner: alpha, Status: 'new' });
    await expectRows(['a10']);
    await show({ Partner: alpha, Status: 'contacted' });
    await expectRows(['a2']);
    await show({ Status: 'ftd' });
    await expectRows(['a3']);
    await show({ Partner: alpha }, true);
    await expectRows(['a3']);
    await show({ Partner: alpha, Country: 'de' }); // typed in lower case, asked in upper
    await expectRows(['a10']);
    expect(page.url()).toContain('country_code=DE');
  });

  it('pages with the cursor: Older, Newer and Newest', async () => {
    await show({ Partner: alpha, 'Per page': '10' });
    const all = newestFirst(...alphaAll);
    await expectRows(all.slice(0, 10));
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect(pager.getByRole('button', { name: 'Newer' }).getAttribute('aria-disabled')).resolves.toBe('true');
    await pager.getByRole('button', { name: 'Older' }).click();
    await expectRows(all.slice(10));
    await pager.getByText('Page 2, the oldest').waitFor();
    await expect(pager.getByRole('button', { name: 'Older' }).getAttribute('aria-disabled')).resolves.toBe('true');
    await shot(page, 'lead-list-older');
    await pager.getByRole('button', { name: 'Newer' }).click();
    await expectRows(all.slice(0, 10));
    await pager.getByRole('button', { name: 'Older' }).click();
    await expectRows(all.slice(10));
    await pager.getByRole('button', { name: 'Newest' }).click();
    await expectRows(all.slice(0, 10));
    await pager.getByText('Page 1').waitFor();
  });

  it('filters by creation time, read as UTC', async () => {
    // The second a10 was created in: a whole second after a9, so from it on come a10 and a11 only.
    const second = (await manager.get<{ created_at: string }>(`/api/leads/${leads.a10}`)).body.created_at.slice(0, 19);
    const range = async (label: string, value: string) => {
      await show({ Partner: alpha });
      await filters().getByLabel(label).fill(value);
      await filters().getByRole('button', { name: 'Show leads' }).click();
      await page.waitForURL(new RegExp(`${label.startsWith('From') ? 'from' : 'to'}=`));
    };
    await range('From (UTC)', second);
    await expectRows(['a11', 'a10']);
    await range('To (UTC)', second);
    await expectRows(newestFirst(...alphaAll.slice(0, 9)));
    await range('From (UTC)', new Date(Date.now() + 86_400_000).toISOString().slice(0, 19));
    await table().getByText('No leads match.').waitFor();
  });

  it('opens a lead from its row, with its history, never its phone or email', async () => {
    await show({ Partner: alpha, Status: 'ftd' });
    await expectRows(['a3']);
    await table().getByRole('link', { name: leads.a3 }).click();
    await page.getByRole('heading', { name: `Lead ${leads.a3}` }).waitFor();
    expect(page.url()).toContain(`id=${leads.a3}`);
    await page.getByRole('region', { name: 'Lead history' }).getByText('lead.ftd').waitFor();
    const html = await page.content();
    for (const personal of ['a3@example.com', '+4479112']) expect(html).not.toContain(personal);
    await page.goBack();
    await expectRows(['a3']);
  });

  it('fits a 390 px phone screen', async () => {
    const phoneView = await watched(
      await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }),
      browserErrors,
    );
    await signInAsOwner(phoneView, app);
    await phoneView.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await phoneView.evaluate((h) => {
      location.hash = h;
    }, `#/leads?affiliate_id=${alpha}`);
    await phoneView
      .getByRole('region', { name: 'Leads', exact: true })
      .getByRole('link', { name: leads.a11 })
      .waitFor();
    expect(await pageWidths(phoneView)).toEqual([390, 390]);
    await shot(phoneView, 'lead-list');
    await phoneView.context().close();
    expect(browserErrors).toEqual([]);
  });
});

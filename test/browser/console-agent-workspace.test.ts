import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Deposit } from '../../src/shared/schemas';
import { launchChromium, pageWidths, shot, signInWith, unnamedControls, watched } from '../support/console-browser';
import { produce } from '../support/intake-commands';
import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { agentRecord, person, waitLead, workspacePartner, type Person } from '../support/workspace-team';

// An agent's day in a real browser (Debian's Chromium through playwright-core): signing in, the queue,
// a lead's card with its number masked, revealing it (a tel: link), recording an outcome, a callback
// that comes due and tops the queue with a reminder, and a deposit the CRM publishes on crm.deposits
// showing the lead as a depositor; then the supervisor giving a lead to another agent of the team.
let app: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let anna: Person;
let sup: Person;
const agents = { a: '', b: '' };
const leads: { id: string; phone: string }[] = [];
const browserErrors: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  const manager = new ManagerClient(app.url);
  sup = await person(app, 'supervisor', 'Sue Supervisor');
  agents.a = await agentRecord(manager, 'Anna', 'GB', sup.id);
  agents.b = await agentRecord(manager, 'Ben', 'IE', sup.id);
  anna = await person(app, 'agent', 'Anna Agent', agents.a);
  await new Promise((r) => setTimeout(r, 1500)); // the roster's next refresh
  const partner = await workspacePartner(app, manager, 'Day partner');
  for (const n of [1, 2]) {
    leads.push(await partner.send('GB', n));
    await waitLead(app, leads[n - 1]!.id, `lead ${n} assigned`, (l) => l.agent_id === agents.a);
  }
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
  page = await watched(context, browserErrors);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.destroy();
});

const queue = () => page.getByRole('region', { name: 'My queue' });
const row = (id: string) => queue().getByRole('row', { name: new RegExp(id) });
const firstRowId = async () => (await queue().locator('tbody tr td:first-child').first().textContent())?.trim();
const openLead = async (id: string) => {
  await queue().getByRole('link', { name: id, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: `Lead ${id}` }).waitFor();
};
const backToQueue = async () => {
  await page.getByRole('link', { name: 'Back to my leads' }).click();
  await page.getByRole('heading', { level: 1, name: 'My leads' }).waitFor();
};
const fact = (label: string) =>
  page.locator('dl.facts dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');

describe("an agent's day", () => {
  it('signs in to their queue: only the workspace, their leads, numbers masked', async () => {
    await signInWith(page, app.url, anna);
    await page.getByRole('heading', { level: 1, name: 'My leads' }).waitFor();
    expect(
      (await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents()).map((t) =>
        t.trim(),
      ),
    ).toEqual(['My leads']);
    await row(leads[1]!.id).waitFor();
    expect(await firstRowId()).toBe(leads[0]!.id);
    for (const l of leads) {
      await expect(row(l.id).textContent()).resolves.toContain(`+44 79** ***${l.phone.slice(-3)}`);
      expect(await page.content()).not.toContain(l.phone.slice(3));
    }
    expect(await unnamedControls(page)).toEqual([]);
    await shot(page, 'workspace-queue');
  });

  it("opens a lead's card and reveals the number: a tel: link", async () => {
    await openLead(leads[0]!.id);
    await expect(fact('Number').textContent()).resolves.toContain(`+44 79** ***${leads[0]!.phone.slice(-3)}`);
    await expect(fact('Partner').textContent()).resolves.toContain('Day partner');
    await expect(fact('Country').textContent()).resolves.toContain('GB');
    await expect(fact('Language').textContent()).resolves.toBe('en');
    await expect(fact('Source').textContent()).resolves.toBe('search');
    await expect(fact('Depositor').textContent()).resolves.toBe('no');
    await page
      .getByRole('region', { name: 'Lead history' })
      .getByText('assigned to', { exact: false })
      .first()
      .waitFor();
    expect(await page.content()).not.toContain(leads[0]!.phone);
    await page.getByRole('button', { name: 'Reveal number' }).click();
    const tel = page.getByRole('link', { name: leads[0]!.phone, exact: true });
    await tel.waitFor();
    expect(await tel.getAttribute('href')).toBe(`tel:${leads[0]!.phone}`);
    await shot(page, 'workspace-card');
  });

  it('records an outcome with one click; the status follows from the lifecycle', async () => {
    await page.getByRole('group', { name: 'Outcome' }).getByRole('button', { name: 'Contacted', exact: true }).click();
    await page.getByText('Recorded: Contacted.').waitFor();
    await fact('Status').getByText('contacted', { exact: true }).waitFor({ timeout: 20_000 });
    // A contacted lead cannot become contacted again: the button is gone.
    expect(
      await page
        .getByRole('group', { name: 'Outcome' })
        .getByRole('button', { name: 'Contacted', exact: true })
        .count(),
    ).toBe(0);
    await backToQueue();
    await expect(row(leads[0]!.id).textContent()).resolves.toContain('In progress');
    expect(await firstRowId()).toBe(leads[1]!.id);
  });

  it('schedules a callback; when it comes due the queue says so and puts the lead on top', async () => {
    await openLead(leads[1]!.id);
    await page.getByRole('group', { name: 'Outcome' }).getByRole('button', { name: 'Callback', exact: true }).click();
    const due = new Date(Date.now() + 8000);
    await page.getByLabel('Call back at').fill(due.toISOString().slice(0, 19));
    await page.getByRole('button', { name: 'Schedule callback' }).click();
    await page.getByText('Recorded: Callback.').waitFor();
    await fact('Status').getByText('callback', { exact: true }).waitFor({ timeout: 20_000 });
    await backToQueue();
    await expect(row(leads[1]!.id).textContent()).resolves.toContain('Callback later');
    expect(await firstRowId()).toBe(leads[0]!.id);
    // No reload by the test: the page reads the queue again when the callback is due.
    await page.getByText('Callback due:').waitFor({ timeout: 20_000 });
    await expect(row(leads[1]!.id).textContent()).resolves.toContain('Callback due');
    expect(await firstRowId()).toBe(leads[1]!.id);
    await shot(page, 'workspace-callback-due');
  });

  it('shows the lead as a depositor once the CRM publishes a deposit, never the amount', async () => {
    const deposit: Deposit = {
      deposit_id: randomUUID(),
      lead_id: leads[0]!.id,
      type: 'deposit',
      amount: '987.65',
      currency: 'EUR',
      occurred_at: new Date().toISOString(),
    };
    await produce(app.runtime, 'deposits', [deposit], () => deposit.lead_id);
    await waitLead(app, leads[0]!.id, 'the ftd', (l) => l.is_depositor);
    await openLead(leads[0]!.id);
    await expect(fact('Depositor').textContent()).resolves.toBe('yes');
    await expect(fact('Status').textContent()).resolves.toBe('ftd');
    expect(await page.content()).not.toContain('987.65');
    await backToQueue();
    await expect(row(leads[0]!.id).textContent()).resolves.toMatch(/ftd.*yes/);
    expect(await pageWidths(page)).toEqual([1280, 1280]);
    expect(browserErrors).toEqual([]);
  });
});

describe("a supervisor's team", () => {
  it("shows each agent's queue and gives a lead to another agent of the team", async () => {
    const supPage = await watched(
      await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' }),
      browserErrors,
    );
    await signInWith(supPage, app.url, sup);
    await supPage
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Team', exact: true })
      .click();
    await supPage.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    const annas = supPage.getByRole('region', { name: 'Queue of Anna' });
    await annas.getByRole('row', { name: new RegExp(leads[1]!.id) }).waitFor();
    expect(await unnamedControls(supPage)).toEqual([]);
    await annas.getByLabel(`Reassign ${leads[1]!.id} to`).selectOption({ label: 'Ben' });
    await annas
      .getByRole('form', { name: `Reassign ${leads[1]!.id}` })
      .getByRole('button', { name: 'Reassign' })
      .click();
    await supPage.getByText(`${leads[1]!.id} goes to Ben.`).waitFor();
    await waitLead(app, leads[1]!.id, 'the reassignment', (l) => l.agent_id === agents.b);
    await supPage
      .getByRole('region', { name: 'Queue of Ben' })
      .getByRole('row', { name: new RegExp(leads[1]!.id) })
      .waitFor({ timeout: 20_000 });
    await shot(supPage, 'workspace-team');
    expect(browserErrors).toEqual([]);
  });
});

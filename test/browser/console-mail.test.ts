import type { Browser, Page } from 'playwright-core';
import {
  launchChromium,
  pageWidths,
  section,
  shot,
  signInAsOwner,
  unnamedControls,
  watched,
} from '../support/console-browser';
import { freePort } from '../support/free-port';
import { mailbox, mailEnv } from '../support/mailpit';
import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The mail outbox in the console, for who keeps the accounts: an invitation the relay never took
// (a relay that is not there, one try) is shown dead with its error, never its content, at a
// desktop and a phone width.
let app: TestApp;
let browser: Browser;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  app = await startTestApp(
    mailEnv({ ROLE: 'ingress', SMTP_URL: `smtp://127.0.0.1:${await freePort()}`, MAIL_MAX_ATTEMPTS: '1' }),
  );
  browser = await launchChromium();
  page = await watched(await browser.newContext({ viewport: { width: 1280, height: 900 } }), errors);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.destroy();
});

it('shows the mail given up, with its recipient, tries and error, on the Accounts page', async () => {
  const to = mailbox('never-reached');
  const invited = await new ManagerClient(app.url).post('/api/accounts', { email: to, name: 'Nell', role: 'analyst' });
  expect(invited.status).toBe(201);
  const mail = app.runtime.mongo.db.collection('mail_outbox');
  await until(async () => (await mail.countDocuments({ to, state: 'dead' })) === 1, 15_000, 'the mail given up');

  await signInAsOwner(page, app);
  await section(page, 'Accounts');
  const outbox = page.getByRole('region', { name: 'Mail' });
  await outbox.getByLabel('Show').selectOption('dead');
  const row = outbox.getByRole('row', { name: new RegExp(to) });
  await row.waitFor();
  expect(await row.textContent()).toMatch(/manager-invitation.*dead.*1/);
  expect(await row.textContent()).not.toContain('#/link/');
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await shot(page, 'accounts-mail');
    const [inner, scroll] = await pageWidths(page);
    expect(scroll).toBeLessThanOrEqual(inner!);
  }
  expect(await unnamedControls(page)).toEqual([]);
  expect(errors).toEqual([]);
});

/// <reference lib="dom" />
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { opsTools } from './ops-tools';
import { totpCode } from '../../src/identity/totp';
import { enrol, invite } from './session-client';

// The manager console in Debian's Chromium through playwright-core (which downloads no browser).
// Screenshots go to test-artifacts/console/ (not in git).
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'console');

export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: opsTools().CHROMIUM_BIN, args: ['--no-sandbox'] });
}

// A page whose console errors (a CSP violation, a failed script) are collected into `errors`; the
// API's 4xx answers a test asks for (a wrong token, a refused setting) are logged by the browser too.
export async function watched(context: BrowserContext, errors: string[]): Promise<Page> {
  const p = await context.newPage();
  p.on('console', (m) => {
    if (m.type() === 'error' && !/the server responded with a status of 4\d\d/.test(m.text())) errors.push(m.text());
  });
  p.on('pageerror', (e) => errors.push(e.message));
  return p;
}

export const shot = (p: Page, name: string) =>
  p.screenshot({ path: join(ARTIFACTS, `${name}-${p.viewportSize()!.width}.png`), fullPage: true });

export interface ConsoleAccount {
  email: string;
  password: string;
  secret: string; // the TOTP secret
}

// An owner made through the API as on a first start: invited with the break-glass token, its password
// and TOTP set through the one-time link. A new one for each sign-in, so no TOTP code is used twice.
export async function newOwner(baseUrl: string): Promise<ConsoleAccount> {
  const invited = await invite(baseUrl, {
    email: `owner-${randomBytes(4).toString('hex')}@example.com`,
    role: 'owner',
  });
  const password = 'console owner passphrase';
  const { secret } = await enrol(baseUrl, invited, password);
  return { email: invited.email, password, secret };
}

// The sign-in page's two steps: the email and password, then a TOTP code. The code is the next
// time step's (the current one's may have confirmed the set-up; a code works once).
export async function signInWith(p: Page, baseUrl: string, account: ConsoleAccount): Promise<void> {
  await p.goto(`${baseUrl}/console/`);
  await p.getByLabel('Email', { exact: true }).fill(account.email);
  await p.getByLabel('Password', { exact: true }).fill(account.password);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.getByLabel('Code from your authenticator app').fill(totpCode(account.secret, Date.now() + 30_000));
  await p.getByRole('button', { name: 'Verify' }).click();
  await p.getByRole('navigation', { name: 'Sections' }).waitFor();
}

// A one-time link's page, open (the console's or the portal's): the password, then an authenticator
// app set up; the person lands signed in. Answers the TOTP secret.
export async function setPasswordAndTotp(p: Page, password: string): Promise<string> {
  await setPassword(p, password);
  await p.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const key = await p.getByLabel('Secret key', { exact: true }).inputValue();
  await p.getByLabel('Code from the app').fill(totpCode(key, Date.now()));
  await p.getByRole('button', { name: 'Confirm the code' }).click();
  await p.getByRole('navigation', { name: 'Sections' }).waitFor();
  return key;
}

// The link page's first step: the password; the page goes on to setting up a second factor.
export async function setPassword(p: Page, password: string): Promise<void> {
  await p.getByLabel('New password').fill(password);
  await p.getByLabel('The same password again').fill(password);
  await p.getByRole('button', { name: 'Set the password' }).click();
  await p.getByRole('heading', { name: 'Set up a second factor' }).waitFor();
}

export async function signInAsOwner(p: Page, app: { url: string }): Promise<ConsoleAccount> {
  const owner = await newOwner(app.url);
  await signInWith(p, app.url, owner);
  return owner;
}

export async function section(p: Page, name: string): Promise<void> {
  await p.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();
  await p.getByRole('heading', { level: 1, name }).waitFor();
}

// Every form control on the page has an accessible name (a label, aria-label or its text).
export function unnamedControls(p: Page): Promise<string[]> {
  return p.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea, button, a[href]')].flatMap((el) => {
      const labelled =
        (el as HTMLInputElement).labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
      return labelled || (el.textContent ?? '').trim() ? [] : [el.outerHTML.slice(0, 80)];
    }),
  );
}

// The page's own width stays at the viewport's (a phone widens its layout viewport when anything sticks out).
export function pageWidths(p: Page): Promise<number[]> {
  return p.evaluate(() => [window.innerWidth, document.documentElement.scrollWidth]);
}

/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { opsTools } from './ops-tools';
import { MANAGER_TOKEN } from './test-config';

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
  p.on('console', (m) => { if (m.type() === 'error' && !/the server responded with a status of 4\d\d/.test(m.text())) errors.push(m.text()); });
  p.on('pageerror', (e) => errors.push(e.message));
  return p;
}

export const shot = (p: Page, name: string) => p.screenshot({ path: join(ARTIFACTS, `${name}-${p.viewportSize()!.width}.png`), fullPage: true });

export async function signIn(p: Page, baseUrl: string, token = MANAGER_TOKEN): Promise<void> {
  await p.goto(`${baseUrl}/console/`);
  await p.getByLabel('Manager token').fill(token);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

export async function section(p: Page, name: string): Promise<void> {
  await p.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();
  await p.getByRole('heading', { level: 1, name }).waitFor();
}

// Every form control on the page has an accessible name (a label, aria-label or its text).
export function unnamedControls(p: Page): Promise<string[]> {
  return p.evaluate(() => [...document.querySelectorAll('input, select, textarea, button, a[href]')].flatMap((el) => {
    const labelled = (el as HTMLInputElement).labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
    return labelled || (el.textContent ?? '').trim() ? [] : [el.outerHTML.slice(0, 80)];
  }));
}

// The page's own width stays at the viewport's (a phone widens its layout viewport when anything sticks out).
export function pageWidths(p: Page): Promise<number[]> {
  return p.evaluate(() => [window.innerWidth, document.documentElement.scrollWidth]);
}

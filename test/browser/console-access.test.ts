import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CONSOLE_CSP } from '../../src/manager/console-static';
import { totpCode } from '../../src/identity/totp';
import { newOwner, section, shot, signInWith, unnamedControls, watched as watchedBy } from '../support/console-browser';
import { SECTIONS, startConsoleStack, WIDTHS } from '../support/console-stack';
import type { TestApp } from '../support/test-app';

// Reaching the manager console in a real browser (Debian's Chromium through playwright-core): the
// page served under a strict Content-Security-Policy, a sign-in refused and then made, and the whole
// console worked with the keyboard alone. Screenshots go to test-artifacts/console/.
let app: TestApp;
let browser: Browser;
let page: Page;
// Console errors of every page (a CSP violation, a failed script) fail the keyboard test.
const browserErrors: string[] = [];

beforeAll(async () => {
  ({ app, browser, page } = await startConsoleStack(browserErrors));
});

afterAll(async () => {
  await browser?.close();
  await app?.destroy();
});

const watched = (context: BrowserContext) => watchedBy(context, browserErrors);

describe('the manager console', () => {
  it('is served with a strict Content-Security-Policy and no inline script or style', async () => {
    const res = await fetch(`${app.url}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval/);
    const html = await res.text();
    expect(html).not.toMatch(/<script>|<style|style=/);
    expect((await fetch(`${app.url}/console/app.js`)).headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses a wrong password with a clear message, and keeps nothing in storage, the URL or a script-readable cookie', async () => {
    const owner = await newOwner(app.url);
    await page.goto(`${app.url}/console/`);
    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('(invalid_credentials)');
    await shot(page, 'sign-in-refused');
    await signInWith(page, app.url, owner);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url()).toBe(`${app.url}/console/`);
    // The session cookie is HttpOnly: no script on the page can read it.
    const stored = await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]);
    expect(stored).toEqual([0, 0, '']);
  });

  it('is used with the keyboard alone: sign-in, skip link, sections, labelled controls, focus on each page title', async () => {
    // A context of its own: the desktop one is signed in already (its cookie outlives the page).
    const keyboardOnly = await browser.newContext({ viewport: { width: WIDTHS.desktop, height: 900 } });
    const p = await watched(keyboardOnly);
    const owner = await newOwner(app.url);
    await p.goto(`${app.url}/console/`);
    await p.getByLabel('Email', { exact: true }).waitFor(); // once the server has said there is no session
    await p.keyboard.press('Tab');
    await expect(p.evaluate(() => document.activeElement?.id)).resolves.toBe('email');
    await p.keyboard.type(owner.email);
    await p.keyboard.press('Tab');
    await p.keyboard.type(owner.password);
    await p.keyboard.press('Enter');
    await p.getByLabel('Code from your authenticator app').waitFor();
    await expect(p.evaluate(() => document.activeElement?.id)).resolves.toBe('totp-code');
    await p.keyboard.type(totpCode(owner.secret, Date.now() + 30_000));
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await expect(p.evaluate(() => document.activeElement?.tagName)).resolves.toBe('H1');

    const passed: string[] = [];
    for (let i = 0; i < 14 && passed.at(-1) !== 'Skip to content'; i++) {
      await p.keyboard.press('Shift+Tab');
      passed.push(await p.evaluate(() => document.activeElement?.textContent ?? ''));
    }
    const menu = `${owner.email.split('@')[0]} (owner)`; // the account menu's button
    expect(passed).toEqual([menu, ...[...SECTIONS].reverse(), 'Skip to content']);
    await p.keyboard.press('Enter');
    await expect(p.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
    await p.keyboard.press('Shift+Tab');
    await p.keyboard.press('Shift+Tab'); // from main back past the account menu to the last section
    await expect(p.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Tokens');
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { level: 1, name: 'Tokens' }).waitFor();
    await expect(p.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Tokens');

    for (const name of SECTIONS) {
      await section(p, name);
      expect({ name, unnamed: await unnamedControls(p) }).toEqual({ name, unnamed: [] });
    }
    const nav = await p.getByRole('navigation', { name: 'Sections' }).ariaSnapshot();
    expect(nav).toContain('link "Audit log"');
    await keyboardOnly.close();
    expect(browserErrors).toEqual([]);
  });
});

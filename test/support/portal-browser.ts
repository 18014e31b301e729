/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { totpCode } from '../../src/identity/totp';
import { setPasswordAndTotp } from './console-browser';

// The partner portal in Chromium (launched as the console's tests launch it). With PORTAL_SCREENSHOTS=1
// each page's screenshot goes to docs/img/portal-<page>-<width>.png, the images docs/partners.md
// shows; otherwise to test-artifacts/portal/ (not in git).
const DOCS_IMG = join(__dirname, '..', '..', 'docs', 'img');
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'portal');

export async function portalShot(p: Page, name: string): Promise<void> {
  const dir = process.env.PORTAL_SCREENSHOTS === '1' ? DOCS_IMG : ARTIFACTS;
  mkdirSync(dir, { recursive: true });
  await p.screenshot({ path: join(dir, `portal-${name}-${p.viewportSize()!.width}.png`), fullPage: true });
}

export const portalNav = (p: Page) => p.getByRole('navigation', { name: 'Sections' });

// The one-time link's page (`onPage` sees it first): a password, then an authenticator app set up.
// Answers the TOTP secret.
export async function acceptPortalLink(
  p: Page,
  url: string,
  password: string,
  onPage?: () => Promise<void>,
): Promise<string> {
  await p.goto(url);
  await p.getByLabel('New password').waitFor();
  await onPage?.();
  return setPasswordAndTotp(p, password);
}

// The sign-in page's two steps; the TOTP code is the next time step's (a code works once).
export async function signInToPortal(
  p: Page,
  baseUrl: string,
  who: { email: string; password: string; secret: string },
  onPage?: () => Promise<void>,
): Promise<void> {
  await p.goto(`${baseUrl}/portal/`);
  await p.getByLabel('Email', { exact: true }).waitFor();
  await onPage?.();
  await p.getByLabel('Email', { exact: true }).fill(who.email);
  await p.getByLabel('Password', { exact: true }).fill(who.password);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.getByLabel('Code from your authenticator app').fill(totpCode(who.secret, Date.now() + 30_000));
  await p.getByRole('button', { name: 'Verify' }).click();
  await portalNav(p).waitFor();
}

export async function openSection(p: Page, name: string, heading = name): Promise<void> {
  await portalNav(p).getByRole('link', { name, exact: true }).click();
  await p.getByRole('heading', { level: 1, name: heading }).waitFor();
}

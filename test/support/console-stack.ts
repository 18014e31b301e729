import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, watched } from './console-browser';
import type { ManagerClient } from './manager-client';
import { startTestApp, type TestApp } from './test-app';
import { until } from './topic-probe';

export const WIDTHS = { desktop: 1280, phone: 390 } as const;

export interface ConsoleStack {
  app: TestApp;
  browser: Browser;
  desktop: BrowserContext; // 1280 px wide, the clipboard allowed
  page: Page; // of `desktop`, its console errors collected
}

// The whole pipeline and a browser for the console's tests. An endpoint failing every attempt for
// 2 s (and 3 in a row) is paused; callbacks are retried after 1 s, four times.
export async function startConsoleStack(errors: string[]): Promise<ConsoleStack> {
  const app = await startTestApp({
    ROLE: 'all',
    CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
    ENDPOINT_PAUSE_AFTER_S: '2',
    ENDPOINT_PAUSE_MIN_FAILURES: '3',
    ENDPOINT_HEALTH_REPORT_MS: '500',
  });
  const browser = await launchChromium();
  const desktop = await browser.newContext({
    viewport: { width: WIDTHS.desktop, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  return { app, browser, desktop, page: await watched(desktop, errors) };
}

// The console's sections, in the order of its navigation.
export const SECTIONS = [
  'Overview',
  'Reports',
  'Partners',
  'Deliveries',
  'Leads',
  'Agents',
  'Audit log',
  'Accounts',
  'Tokens',
] as const;

// Every page of the console for the phone test: its name, route and title.
export const consolePages = (partnerId: string, leadId: string): [string, string, string][] => [
  ['overview', '#/overview', 'Overview'],
  ['reports', '#/reports', 'Reports'],
  ['partners', '#/partners', 'Partners'],
  ['partner', `#/partners/${partnerId}`, 'Partner Console partner'],
  ['deliveries', `#/deliveries?affiliate_id=${partnerId}`, 'Deliveries'],
  ['leads', '#/leads', 'Leads'],
  ['lead', `#/leads?id=${leadId}`, 'Leads'],
  ['agents', '#/agents', 'Agents'],
  ['audit', '#/audit', 'Audit log'],
  ['accounts', '#/accounts', 'Accounts'],
  ['tokens', '#/tokens', 'Tokens'],
  ['account', '#/account', 'Your account'],
];

// The partner's first delivery in `state`, waited for through the manager API.
export const deliveryOf = (manager: ManagerClient, partnerId: string, state: string) =>
  until(
    async () => {
      const res = await manager.get<{ items: { id: string; state: string }[] }>(
        `/api/deliveries?affiliate_id=${partnerId}&state=${state}`,
      );
      return res.body.items[0] ?? null;
    },
    30000,
    `a ${state} delivery of ${partnerId}`,
  );

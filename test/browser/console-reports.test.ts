import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { leadListEntries } from '../../src/shared/store/lead-list';
import { ListIndex } from '../../src/shared/store/list-index';
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
import { DAYS, EXPECTED, EXPECTED_TOTALS, playScenario, ZONES } from '../support/report-scenario';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The console's Reports page in a real browser over the reports' hand-counted scenario
// (test/support/report-scenario.ts: two partners in two time zones, two days; accepted, rejected,
// duplicated, contacted, deposited, charged back): the table, the funnel, the trend and the
// downloaded CSV show the hand count, and a partner's row opens that partner's leads.
let app: TestApp;
let browser: Browser;
let page: Page;
const browserErrors: string[] = [];
const partners = { a: '', b: '' };
const NAMES = { a: 'Tokyo desk', b: 'New York desk' } as const;
type Key = keyof typeof NAMES;
type Expected = (typeof EXPECTED)[Key][keyof (typeof EXPECTED)[Key]];

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  const manager = new ManagerClient(app.url);
  partners.a = (await manager.post<{ id: string }>('/api/affiliates', { name: NAMES.a, time_zone: ZONES.a })).body.id;
  partners.b = (await manager.post<{ id: string }>('/api/affiliates', { name: NAMES.b, time_zone: ZONES.b })).body.id;
  const leads = await playScenario(app.runtime, partners);
  // The scenario stores its leads itself: listed here as their writer (LeadStore) lists them.
  await new ListIndex(app.runtime.mongo.collections.leadList).put(leads.flatMap(leadListEntries));
  await until(
    async () => {
      const totals = (
        await manager.get<{ totals: Record<string, unknown> }>(`/api/reports?from=${DAYS.first}&to=${DAYS.second}`)
      ).body.totals;
      return Object.entries(EXPECTED_TOTALS).every(([k, v]) => JSON.stringify(totals[k]) === JSON.stringify(v));
    },
    60_000,
    'the whole scenario to be counted',
  );

  browser = await launchChromium();
  page = await watched(await browser.newContext({ viewport: { width: 1280, height: 900 } }), browserErrors);
  await signInAsOwner(page, app);
  await section(page, 'Reports');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.destroy();
});

const percent = (share: number | null) => (share === null ? '—' : `${Number((share * 100).toFixed(1))}%`);
const median = (s: number | null) => (s === null ? '—' : s < 3600 ? `≤ ${s / 60} min` : `≤ ${s / 3600} h`);

// A row of the page's table as {heading: text}.
async function tableRows(): Promise<Record<string, string>[]> {
  const table = page.getByRole('region', { name: 'Report', exact: true }).getByRole('table');
  const headings = await table.locator('thead th').allTextContents();
  const rows = await table
    .locator('tbody tr, tfoot tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? '')));
  return rows.map((cells) => {
    // The total row's first cell spans the dimension columns.
    const aligned =
      cells[0] === 'Total' ? [...Array(headings.length - cells.length + 1).fill('Total'), ...cells.slice(1)] : cells;
    return Object.fromEntries(headings.map((h, i) => [h, aligned[i] ?? '']));
  });
}

const counted = (
  e: Record<
    'received' | 'accepted' | 'duplicates' | 'validation_errors' | 'contacted' | 'ftd' | 'rtd' | 'chargebacks',
    number
  >,
) => ({
  Received: String(e.received),
  Accepted: String(e.accepted),
  Duplicates: String(e.duplicates),
  'Validation errors': String(e.validation_errors),
  Contacted: String(e.contacted),
  FTD: String(e.ftd),
  RTD: String(e.rtd),
  Chargebacks: String(e.chargebacks),
});

async function showReport(groupBy: string[]): Promise<void> {
  const form = page.getByRole('form', { name: 'Report' });
  await form.getByLabel('First day').fill(DAYS.first);
  await form.getByLabel('Last day').fill(DAYS.second);
  for (const d of ['partner', 'country', 'source', 'day'])
    await form.getByLabel(d, { exact: true }).setChecked(groupBy.includes(d));
  await form.getByRole('button', { name: 'Show report' }).click();
  await page.waitForURL(new RegExp(`group_by=${groupBy.join('%2C')}`));
}

describe('the Reports page', () => {
  it("shows the hand count per partner and partner's day, and the totals", async () => {
    await showReport(['partner', 'day']);
    await until(async () => (await tableRows()).length === 5, 10_000, 'four rows and the total');
    const rows = await tableRows();
    for (const key of ['a', 'b'] as const) {
      for (const day of [DAYS.first, DAYS.second]) {
        const e: Expected = EXPECTED[key][day];
        const row = rows.find((r) => r.Partner!.startsWith(NAMES[key]) && r.Day === day);
        expect({ key, day, ...row }).toMatchObject({
          key,
          day,
          ...counted(e),
          Rejected: expect.stringMatching(new RegExp(`^${e.rejected}\\b`)),
          'Median to contact': median(e.median_seconds_to_contact),
          'Median to FTD': median(e.median_seconds_to_ftd),
        });
      }
    }
    const total = rows.at(-1)!;
    expect(total).toMatchObject({
      ...counted(EXPECTED_TOTALS),
      Rejected: `${EXPECTED_TOTALS.rejected} (country 1, source 1, ip 1, risk 1, cap 1)`,
      'Accepted share': percent(EXPECTED_TOTALS.accepted_share),
      'Contact rate': percent(EXPECTED_TOTALS.contact_rate),
      'FTD conversion': percent(EXPECTED_TOTALS.ftd_conversion),
      'Chargeback rate': percent(EXPECTED_TOTALS.chargeback_rate),
      'Median to contact': median(EXPECTED_TOTALS.median_seconds_to_contact),
      'Median to FTD': median(EXPECTED_TOTALS.median_seconds_to_ftd),
    });
    expect(await unnamedControls(page)).toEqual([]);
    await shot(page, 'reports');
  });

  it('draws the funnel and the per-day trend from the same numbers', async () => {
    const funnel = page.getByRole('figure').filter({ hasText: 'Funnel' });
    const steps = await funnel.getByRole('listitem').allTextContents();
    expect(steps).toEqual([
      `Received${EXPECTED_TOTALS.received}`,
      `Accepted${EXPECTED_TOTALS.accepted} ${percent(EXPECTED_TOTALS.accepted_share)} of received`,
      `Contacted${EXPECTED_TOTALS.contacted} ${percent(EXPECTED_TOTALS.contact_rate)} of accepted`,
      `FTD${EXPECTED_TOTALS.ftd} ${percent(EXPECTED_TOTALS.ftd_conversion)} of accepted`,
    ]);
    const perDay = (day: keyof typeof EXPECTED.a, f: 'received' | 'accepted' | 'ftd') =>
      EXPECTED.a[day][f] + EXPECTED.b[day][f];
    const trend = await page.getByRole('img', { name: /^Leads per day/ }).getAttribute('aria-label');
    expect(trend).toBe(
      `Leads per day: ${[DAYS.first, DAYS.second].map((d) => `${d}: received ${perDay(d, 'received')}, accepted ${perDay(d, 'accepted')}, FTD ${perDay(d, 'ftd')}`).join('; ')}`,
    );
  });

  it('downloads the same numbers as CSV', async () => {
    const downloaded = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await downloaded;
    expect(file.suggestedFilename()).toBe(`report-${DAYS.first}-${DAYS.second}.csv`);
    const [header, ...lines] = (await readFile((await file.path())!, 'utf8'))
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    const at = (line: string[], column: string) => line[header!.indexOf(column)];
    const numbers = (line: string[]) =>
      Object.fromEntries(
        [
          'received',
          'accepted',
          'duplicates',
          'validation_errors',
          'rejected',
          'contacted',
          'ftd',
          'rtd',
          'chargebacks',
        ].map((c) => [c, Number(at(line, c))]),
      );
    const pick = (e: Expected | typeof EXPECTED_TOTALS) => ({
      received: e.received,
      accepted: e.accepted,
      duplicates: e.duplicates,
      validation_errors: e.validation_errors,
      rejected: e.rejected,
      contacted: e.contacted,
      ftd: e.ftd,
      rtd: e.rtd,
      chargebacks: e.chargebacks,
    });
    expect(lines).toHaveLength(5);
    for (const key of ['a', 'b'] as const) {
      for (const day of [DAYS.first, DAYS.second]) {
        const line = lines.find((l) => at(l, 'partner_id') === partners[key] && at(l, 'day') === day)!;
        expect({ key, day, ...numbers(line) }).toEqual({ key, day, ...pick(EXPECTED[key][day]) });
      }
    }
    const total = lines.at(-1)!;
    expect(total[0]).toBe('total');
    expect(numbers(total)).toEqual(pick(EXPECTED_TOTALS));
    expect(Number(at(total, 'accepted_share'))).toBe(EXPECTED_TOTALS.accepted_share);
  });

  it("opens a partner's leads of a row's day, that day being the partner's own", async () => {
    // Tokyo's 11th began at 15:00 UTC on the 10th: its leads of 20:00 UTC on the 10th are the 11th's.
    await page.getByRole('link', { name: `Leads of ${NAMES.a} on ${DAYS.second}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Leads' }).waitFor();
    const list = page.getByRole('region', { name: 'Leads', exact: true });
    await list.getByRole('link', { name: 'le-108' }).waitFor();
    expect(await list.locator('tbody tr td:first-child a').allTextContents()).toEqual(['le-108', 'le-107', 'le-106']);
    const form = page.getByRole('form', { name: 'Filter leads' });
    await expect(form.getByLabel('Partner', { exact: true }).inputValue()).resolves.toBe(partners.a);
    await expect(form.getByLabel('From (UTC)').inputValue()).resolves.toMatch(/^2026-11-10T15:00/);
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Reports' }).waitFor();
  });

  it('groups by country and source (shown as sent, =cmd too: only the CSV neutralises), and fits a phone', async () => {
    await showReport(['country', 'source']);
    await until(async () => (await tableRows()).some((r) => r.Source === '=cmd'), 10_000, 'the =cmd source row');
    const rows = await tableRows();
    const us = rows.find((r) => r.Country === 'US' && r.Source === '=cmd')!;
    expect(us).toMatchObject({ Received: String(EXPECTED.b[DAYS.first].received) });
    const phone = await watched(
      await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }),
      browserErrors,
    );
    await signInAsOwner(phone, app);
    await phone.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await phone.evaluate((h) => {
      location.hash = h;
    }, `#/reports?from=${DAYS.first}&to=${DAYS.second}&group_by=partner,day`);
    await phone.getByRole('link', { name: `Leads of ${NAMES.b} on ${DAYS.second}` }).waitFor();
    expect(await pageWidths(phone)).toEqual([390, 390]);
    await shot(phone, 'reports');
    await phone.context().close();
    expect(browserErrors).toEqual([]);
  });
});

import { loadConfig } from '../../src/shared/config';
import type { LeadDoc } from '../../src/shared/mongo/documents';
import { LeadStore } from '../../src/shared/store/leads';
import { ListIndex } from '../../src/shared/store/list-index';
import { createPartnerVia, type Created } from '../support/created-partner';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { testEnv } from '../support/test-config';

// The partner API's lead list checks sub_id (and country, source, click_id) entry by entry for at
// most REPORT_SCAN_MS a call: a spent step answers a short page whose next_cursor scans on, and
// following the cursors gives every matching lead once. Two ingresses over the same data: one whose
// step is 1 ms (each call reads one chunk of entries), one whose step is 10 s (a call reads up to its
// 2,000 entries). The leads are stored through the lead store's own write path (entries with the
// lead), three to a second so a chunk can end inside a run of equal times.
const LEADS = 1200;
const RARE = 97; // one lead in RARE has the rare sub_id
let short: TestApp;
let long: TestApp;
let partner: Created;

type Page = { items: { external_id: string }[]; next_cursor: string | null };

function leadOf(partnerId: string, n: number): LeadDoc {
  const at = new Date(Date.UTC(2026, 10, 20, 10) + Math.floor(n / 3) * 1000);
  return {
    _id: `le-scan-${n}`,
    seq: n,
    partner_id: partnerId,
    external_id: `ext-${n}`,
    idempotency_key: `idem-${n}`,
    status: 'new',
    is_depositor: false,
    client_id: null,
    agent_id: null,
    reason: null,
    history: [
      { from: null, to: 'new', at, why: 'accepted', source: 'intake', event: 'lead.accepted', is_depositor: false },
    ],
    country_code: 'DE',
    source: 'search',
    sub_id: n % RARE === 0 ? 'rare' : `sub-${n % 7}`,
    created_at: at,
    updated_at: at,
  };
}

beforeAll(async () => {
  const env = testEnv({ ROLE: 'ingress' });
  short = await startTestApp({}, loadConfig({ ...env, REPORT_SCAN_MS: '1' }));
  long = await startTestApp({}, loadConfig({ ...env, REPORT_SCAN_MS: '10000' }));
  partner = await createPartnerVia(new ManagerClient(short.url), { name: 'scan-reports' });
  const c = short.runtime.mongo.collections;
  const leads = new LeadStore(c.leads, { list: new ListIndex(c.leadList), isTerminal: () => false });
  await leads.insertNew(Array.from({ length: LEADS }, (_, n) => leadOf(partner.id, n)));
}, 60_000);

afterAll(async () => {
  await long?.stop();
  await short?.destroy();
});

const rare = Array.from({ length: LEADS }, (_, n) => n)
  .filter((n) => n % RARE === 0)
  .map((n) => `ext-${n}`)
  .sort();

// Every page of the rare sub_id, following next_cursor until it is null.
async function pagesOf(app: TestApp): Promise<Page[]> {
  const asPartner = new PartnerClient(app.url, partner);
  const pages: Page[] = [];
  let cursor: string | null | undefined;
  do {
    const res = await asPartner.report('leads', { sub_id: 'rare', limit: 50, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    pages.push(res.body as Page);
    cursor = (res.body as Page).next_cursor;
  } while (cursor !== null && pages.length < 50);
  return pages;
}

const externalIds = (pages: Page[]) => pages.flatMap((p) => p.items.map((r) => r.external_id));

it('answers a short page with a next_cursor once its scan step is spent; the cursors give every match once', async () => {
  const pages = await pagesOf(short);
  // Fewer than asked, though more match: the step ended the page, not the list.
  expect(pages[0]!.items.length).toBeLessThan(rare.length);
  expect(pages[0]!.next_cursor).not.toBeNull();
  const seen = externalIds(pages);
  expect(seen).toHaveLength(new Set(seen).size);
  expect([...seen].sort()).toEqual(rare);
});

it('reads on within a longer step: one page holds every match', async () => {
  const pages = await pagesOf(long);
  expect(pages.map((p) => [p.items.length, p.next_cursor])).toEqual([[rare.length, null]]);
  expect([...externalIds(pages)].sort()).toEqual(rare);
});

import { createPartnerVia, type Created } from '../support/created-partner';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { sendLead } from '../support/portal-data';
import { reportsCaughtUp } from '../support/reports-caught-up';
import { startTestApp, type TestApp } from '../support/test-app';

// The partner API's reporting calls over the whole pipeline: two partners, A and B, send leads
// with the same sub_id and source through the partner API; each partner's own key and signature
// read its leads (masked, filtered, a cursor page at a time) and its numbers per day, and no
// answer to A's key, whatever it asks, carries anything of B's.
let app: TestApp;
let a: Created;
let b: Created;
let asA: PartnerClient;
let asB: PartnerClient;
const bSecrets: string[] = [];
let sentDay = ''; // the UTC day the leads were sent on (a run across midnight still finds them)

type Row = { id: string; external_id: string; phone: string | null; source: string | null; our_status: string };
type Page = { items: Row[]; next_cursor: string | null };
type Report = { from: string; to: string; totals: { received: number; accepted: number }; by_day: { day: string }[] };

const externalIds = (page: Page) => page.items.map((r) => r.external_id).sort();

beforeAll(async () => {
  sentDay = new Date().toISOString().slice(0, 10);
  app = await startTestApp({ ROLE: 'all' });
  const manager = new ManagerClient(app.url);
  a = await createPartnerVia(manager, { name: 'alpha-reports', rate_limits: { status_per_minute: 40 } });
  b = await createPartnerVia(manager, { name: 'beta-reports' });
  asA = new PartnerClient(app.url, a);
  asB = new PartnerClient(app.url, b);
  const shared = { source: 'shared-src', sub_id: 'sub-shared' };
  await sendLead(app.url, a, { external_id: 'a-1', ...shared, click_id: 'click-a1' });
  await sendLead(app.url, a, { external_id: 'a-2', ...shared, click_id: 'click-a2' });
  await sendLead(app.url, a, { external_id: 'a-3', country: 'DE', source: 'other', sub_id: 'sub-other' });
  for (const external_id of ['b-1', 'b-2']) {
    const lead = await sendLead(app.url, b, { external_id, ...shared, click_id: `click-${external_id}` });
    bSecrets.push(lead.id!, lead.externalId, lead.phone.slice(3), lead.email);
  }
  bSecrets.push(b.id, b.api_key, 'beta-reports', 'click-b-1');
  await reportsCaughtUp(app.runtime);
}, 120_000);

afterAll(async () => {
  await app?.destroy();
});

// Nothing of B's anywhere in an answer to A.
function expectNothingOfB(answer: unknown): void {
  const text = JSON.stringify(answer);
  for (const secret of bSecrets) expect(text).not.toContain(secret);
}

describe('GET /api/v1/leads', () => {
  it("answers a partner's own leads, masked, and never another's, whatever the filter", async () => {
    const all = await asA.report('leads');
    expect(all.status).toBe(200);
    expect(externalIds(all.body as Page)).toEqual(['a-1', 'a-2', 'a-3']);
    for (const row of (all.body as Page).items) expect(row.phone).toMatch(/^\+44 \d{2}\*\* \*\*\*\d{3}$/);
    const probes: Record<string, string>[] = [
      {},
      { sub_id: 'sub-shared' },
      { source: 'shared-src' },
      { click_id: 'click-b-1' },
      { external_id: 'b-1' },
      { country: 'GB' },
      { status: 'new' },
    ];
    for (const q of probes) expectNothingOfB((await asA.report('leads', q)).body);
    expect(externalIds((await asB.report('leads', { sub_id: 'sub-shared' })).body as Page)).toEqual(['b-1', 'b-2']);
  });

  it('filters as the portal does: sub_id, click_id, source, country, external id, status, dates', async () => {
    const ids = async (q: Record<string, string | number>) => externalIds((await asA.report('leads', q)).body as Page);
    expect(await ids({ sub_id: 'sub-shared' })).toEqual(['a-1', 'a-2']);
    expect(await ids({ click_id: 'click-a2' })).toEqual(['a-2']);
    expect(await ids({ click_id: 'click-b-1' })).toEqual([]);
    expect(await ids({ source: 'other' })).toEqual(['a-3']);
    expect(await ids({ country: 'DE' })).toEqual(['a-3']);
    expect(await ids({ external_id: 'a-1' })).toEqual(['a-1']);
    expect(await ids({ external_id: 'b-1' })).toEqual([]);
    const status = ((await asA.report('leads', { external_id: 'a-1' })).body as Page).items[0]!.our_status;
    expect(await ids({ status })).toContain('a-1');
    expect(await ids({ status: 'no-such-status' })).toEqual([]);
    expect(await ids({ from: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
  });

  it('pages with a cursor', async () => {
    const first = (await asA.report('leads', { limit: 2 })).body as Page;
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = (await asA.report('leads', { limit: 2, cursor: first.next_cursor! })).body as Page;
    expect(second.next_cursor).toBeNull();
    expect([...externalIds(first), ...externalIds(second)].sort()).toEqual(['a-1', 'a-2', 'a-3']);
  });

  it('refuses a bad query (422), an unsigned request (403) and a missing key (401), as documented', async () => {
    const bad = await asA.report('leads', { country: 'Germany' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe('invalid_request');
    // A parameter no filter takes is dropped, never read: naming B changes nothing.
    const named = await asA.report('leads', { partner_id: b.id, affiliate_id: b.id });
    expect(externalIds(named.body as Page)).toEqual(['a-1', 'a-2', 'a-3']);
    const unsigned = await asA.report('leads', { country: 'Germany' }, { signature: null });
    expect(unsigned.status).toBe(403);
    expect(unsigned.body.error).toBe('invalid_signature');
    expect((await asA.report('leads', {}, { apiKey: null })).body.error).toBe('missing_api_key');
  });
});

describe('GET /api/v1/reports', () => {
  it("answers the partner's own traffic per day, never another's", async () => {
    const res = await asA.report('reports');
    expect(res.status).toBe(200);
    const report = res.body as Report;
    expect(report.totals).toMatchObject({ received: 3, accepted: 3 });
    expect(report.from < sentDay && report.to >= sentDay).toBe(true);
    expect(report.by_day.map((d) => d.day)).toEqual([sentDay]);
    expectNothingOfB(report);
    expect(((await asB.report('reports')).body as Report).totals).toMatchObject({ received: 2 });
    const one = (await asA.report('reports', { from: sentDay, to: sentDay })).body as Report;
    expect(one.by_day.map((d) => d.day)).toEqual([sentDay]);
    expect((await asA.report('reports', { from: sentDay, to: '2020-01-01' })).status).toBe(422);
    expect((await asA.report('reports', { from: 'yesterday' })).status).toBe(422);
  });

  it('counts in a window of its own at the status quota', async () => {
    // 40 a minute for A (set at creation); the calls above spent some of it, the status lookup none.
    let last = 0;
    for (let i = 0; i < 40 && last !== 429; i++) last = (await asA.report('reports')).status;
    expect(last).toBe(429);
    const limited = await asA.report('leads');
    expect(limited.body.error).toBe('rate_limit_exceeded');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await asA.leadStatus('a-1')).status).toBe(200);
  });
});

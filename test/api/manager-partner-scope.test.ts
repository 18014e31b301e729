import type { IntakeReply } from '../../src/shared/schemas';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { ManagerClient } from '../support/manager-client';
import { acceptedLead, deliveriesOf, roleToken } from '../support/manager-data';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe, until } from '../support/topic-probe';

// An affiliate manager sees only the partners assigned to them, in every list, lookup, report and
// CSV: two partners with leads, deliveries, audit entries, replay jobs and report counts each; a
// manager of one never sees the other's, and gets 404 on the other's ids. One of both sees both,
// merged newest first.
let app: TestApp;
let owner: ManagerClient;
let mineToken: string;
let mine: ManagerClient; // affiliate_manager of A
let both: ManagerClient; // affiliate_manager of A and B
let receiver: CallbackReceiver;
let replies: TopicProbe<IntakeReply>;

interface PartnerData {
  id: string;
  leads: { id: string; externalId: string }[];
  deliveries: string[];
  replay: string;
}
const p = {} as Record<'a' | 'b', PartnerData>;

type Page = { items: { id: string; affiliate_id: string | null }[]; next_cursor: string | null };
type Report = { rows: { partner_id: string; received: number }[]; totals: { received: number; accepted: number } };

async function partner(name: string): Promise<string> {
  const res = await owner.post<{ id: string; callback_secret: string }>('/api/affiliates', {
    name,
    callback_url: receiver.url(`/${name}`),
  });
  receiver.route(`/${name}`, res.body.callback_secret, status(200, 'ok'));
  return res.body.id;
}

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  owner = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  replies = await new TopicProbe<IntakeReply>(app.runtime, 'intakeReplies').start();
  const ids = { a: await partner('scope-a'), b: await partner('scope-b') };
  // Sequential and interleaved, so created_at orders them: a1, b1, a2, b2.
  const leads: Record<'a' | 'b', PartnerData['leads']> = { a: [], b: [] };
  for (let n = 1; n <= 2; n++)
    for (const k of ['a', 'b'] as const) leads[k].push(await acceptedLead(app, replies, ids[k], n));
  const now = Date.now();
  for (const k of ['a', 'b'] as const) {
    await owner.patch(`/api/affiliates/${ids[k]}`, { name: `scope-${k} renamed` });
    const replay = await owner.post<{ id: string }>(`/api/affiliates/${ids[k]}/replay`, {
      from: new Date(now - 3600_000).toISOString(),
      to: new Date(now + 60_000).toISOString(),
    });
    p[k] = { id: ids[k], leads: leads[k], deliveries: await deliveriesOf(owner, ids[k], 2), replay: replay.body.id };
  }
  await until(
    async () => {
      const report = (await owner.get<Report>('/api/reports?group_by=partner')).body;
      return report.rows.filter((r) => r.received >= 2).length === 2;
    },
    30000,
    "both partners' leads to be counted",
  );
  mineToken = (await roleToken(app.url, 'affiliate_manager', [p.a.id])).token;
  mine = owner.withToken(mineToken);
  both = owner.withToken((await roleToken(app.url, 'affiliate_manager', [p.a.id, p.b.id])).token);
}, 120000);

afterAll(async () => {
  await replies?.stop();
  await receiver?.stop();
  await app?.destroy();
});

const partnersOf = (page: Page) => [...new Set(page.items.map((i) => i.affiliate_id))];
const list = async (client: ManagerClient, path: string) => {
  const res = await client.get<Page>(path);
  expect(res.status).toBe(200);
  return res.body;
};

describe("an affiliate manager's lists", () => {
  it('lists only their partners', async () => {
    expect((await list(mine, '/api/affiliates')).items.map((i) => i.id)).toEqual([p.a.id]);
    expect((await list(owner, '/api/affiliates')).items.map((i) => i.id).sort()).toEqual([p.a.id, p.b.id].sort());
  });

  it("lists only their partners' leads, with any filter; another partner's filter gives an empty page", async () => {
    expect((await list(mine, '/api/leads')).items.map((i) => i.id)).toEqual([p.a.leads[1]!.id, p.a.leads[0]!.id]);
    expect(partnersOf(await list(mine, '/api/leads?status=new'))).toEqual([p.a.id]);
    expect(partnersOf(await list(mine, '/api/leads?country_code=DE'))).toEqual([p.a.id]);
    expect(partnersOf(await list(mine, `/api/leads?affiliate_id=${p.a.id}`))).toEqual([p.a.id]);
    expect(await list(mine, `/api/leads?affiliate_id=${p.b.id}`)).toEqual({ items: [], next_cursor: null });
    expect(await list(mine, `/api/leads?affiliate_id=${p.b.id}&status=new`)).toEqual({ items: [], next_cursor: null });
  });

  it('merges several partners newest first, a page at a time', async () => {
    const order = [p.b.leads[1]!, p.a.leads[1]!, p.b.leads[0]!, p.a.leads[0]!].map((l) => l.id);
    expect((await list(both, '/api/leads')).items.map((i) => i.id)).toEqual(order);
    const first = await list(both, '/api/leads?limit=3');
    const second = await list(both, `/api/leads?limit=3&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect([...first.items, ...second.items].map((i) => i.id)).toEqual(order);
    expect(second.next_cursor).toBeNull();
  });

  it("lists only their partners' deliveries", async () => {
    expect((await list(mine, '/api/deliveries')).items.map((i) => i.id).sort()).toEqual([...p.a.deliveries].sort());
    expect(partnersOf(await list(mine, '/api/deliveries?state=delivered'))).toEqual([p.a.id]);
    expect(partnersOf(await list(mine, '/api/deliveries?event=lead.accepted'))).toEqual([p.a.id]);
    expect(await list(mine, `/api/deliveries?affiliate_id=${p.b.id}`)).toEqual({ items: [], next_cursor: null });
    expect(partnersOf(await list(both, '/api/deliveries')).sort()).toEqual([p.a.id, p.b.id].sort());
  });

  it("lists only their partners' audit entries (none about no partner)", async () => {
    const audit = await list(mine, '/api/audit-log?limit=200');
    expect(audit.items.length).toBeGreaterThanOrEqual(2); // partner.create, partner.update, partner.replay
    expect(partnersOf(audit)).toEqual([p.a.id]);
    expect(partnersOf(await list(mine, '/api/audit-log?action=partner.update'))).toEqual([p.a.id]);
    expect(await list(mine, `/api/audit-log?affiliate_id=${p.b.id}`)).toEqual({ items: [], next_cursor: null });
    const everyone = await list(owner, '/api/audit-log?limit=200');
    expect(partnersOf(everyone)).toEqual(expect.arrayContaining([p.a.id, p.b.id, null]));
  });
});

describe("an affiliate manager's reports", () => {
  it('counts only their partners, in the report and its CSV', async () => {
    const all = (await owner.get<Report>('/api/reports?group_by=partner')).body;
    const report = (await mine.get<Report>('/api/reports?group_by=partner')).body;
    expect(report.rows.map((r) => r.partner_id)).toEqual([p.a.id]);
    expect(report.rows[0]).toEqual(all.rows.find((r) => r.partner_id === p.a.id));
    expect(report.totals.received).toBe(all.rows.find((r) => r.partner_id === p.a.id)!.received);
    expect(
      (await mine.get<Report>('/api/reports?group_by=partner,country,day')).body.rows.every(
        (r) => r.partner_id === p.a.id,
      ),
    ).toBe(true);
    const other = (await mine.get<Report>(`/api/reports?affiliate_id=${p.b.id}`)).body;
    expect(other.rows).toEqual([]);
    expect(other.totals.received).toBe(0);
  });

  it('gives the CSV of their partners only', async () => {
    const csv = await mineCsv('/api/reports.csv?group_by=partner,day');
    expect(csv).toContain(p.a.id);
    expect(csv).not.toContain(p.b.id);
    expect(await mineCsv(`/api/reports.csv?group_by=partner&affiliate_id=${p.b.id}`)).not.toContain(p.b.id);
  });
});

describe("an affiliate manager's lookups", () => {
  it("finds their partner's lead, delivery and replay job", async () => {
    expect((await mine.get(`/api/leads/${p.a.leads[0]!.id}`)).status).toBe(200);
    expect((await mine.get(`/api/affiliates/${p.a.id}/leads/${p.a.leads[0]!.externalId}`)).status).toBe(200);
    expect((await mine.get(`/api/deliveries/${p.a.deliveries[0]}`)).status).toBe(200);
    expect((await mine.get(`/api/replays/${p.a.replay}`)).status).toBe(200);
    expect((await mine.post(`/api/deliveries/${p.a.deliveries[0]}/retry`)).status).toBe(409); // delivered, not dead
  });

  it("answers 404 for the other partner's ids, as for unknown ones", async () => {
    const before = (await owner.get(`/api/deliveries/${p.b.deliveries[0]}`)).body;
    const answers = await Promise.all([
      mine.get(`/api/leads/${p.b.leads[0]!.id}`),
      mine.get(`/api/affiliates/${p.b.id}`),
      mine.get(`/api/affiliates/${p.b.id}/leads/${p.b.leads[0]!.externalId}`),
      mine.get(`/api/deliveries/${p.b.deliveries[0]}`),
      mine.post(`/api/deliveries/${p.b.deliveries[0]}/retry`),
      mine.get(`/api/replays/${p.b.replay}`),
      mine.get('/api/replays/rj-no-such-job'),
    ]);
    expect(answers.map((a) => [a.status, a.body.error])).toEqual(answers.map(() => [404, 'not_found']));
    // The other partner's delivery was left alone.
    expect((await owner.get(`/api/deliveries/${p.b.deliveries[0]}`)).body).toEqual(before);
  });
});

async function mineCsv(path: string): Promise<string> {
  const res = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${mineToken}` } });
  expect(res.status).toBe(200);
  return res.text();
}

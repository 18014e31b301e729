import { localTime } from '../../src/shared/local-time';
import type { ManagerClient } from '../support/manager-client';
import { sendLead, type FedPartner } from '../support/portal-data';
import type { PortalPerson } from '../support/portal-client';
import { ADMIN_NAME, auditEntries, startPortalAdminStack, type Page } from '../support/portal-admin-stack';
import type { TestApp } from '../support/test-app';

// The portal's lead list for every day: the status filter from the catalogue, sub_id and click_id,
// and the CSV export of exactly what the filters show, over a bounded range, audited.
let app: TestApp;
let manager: ManagerClient;
let acme: FedPartner;
let admin: PortalPerson;
type Row = { id: string; external_id: string; our_status: string };

const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

beforeAll(async () => {
  ({ app, manager, acme, admin } = await startPortalAdminStack());
  await sendLead(app.url, acme, { external_id: 'x-1', sub_id: 'sub-a', click_id: 'click-1', source: '=cmd' });
  await sendLead(app.url, acme, { external_id: 'x-2', sub_id: 'sub-a', click_id: 'click-2' });
  await sendLead(app.url, acme, { external_id: 'x-3', sub_id: 'sub-b', click_id: 'click-3' });
  await sendLead(app.url, acme, { external_id: 'x-fr', country: 'FR', sub_id: 'sub-a' }); // rejected
}, 120_000);

afterAll(async () => {
  await app?.destroy();
});

const csvOf = async (q: string) => {
  const res = await fetch(`${app.url}/portal/api/leads.csv?${q}`, { headers: { cookie: admin.client.cookie! } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};
const listed = async (q: string) => (await admin.client.get<Page<Row>>(`/portal/api/leads?${q}`)).body.items;

describe('lead list filters', () => {
  it('offers the status catalogue, and filters by sub_id and click_id', async () => {
    const { statuses } = (await admin.client.get<{ statuses: { code: string }[] }>('/portal/api/statuses')).body;
    expect(statuses.map((s) => s.code)).toEqual(expect.arrayContaining(['new', 'assigned', 'ftd', 'rejected']));
    const ids = async (q: string) => (await listed(q)).map((r) => r.external_id).sort();
    expect(await ids('sub_id=sub-a')).toEqual(['x-1', 'x-2', 'x-fr']);
    expect(await ids('sub_id=sub-a&status=rejected')).toEqual(['x-fr']);
    expect(await ids('click_id=click-3')).toEqual(['x-3']);
    expect(await ids('click_id=nobody')).toEqual([]);
  });
});

describe('CSV export', () => {
  it('exports exactly what the list shows for the same filters, cells safe in a spreadsheet', async () => {
    const range = `from=${encodeURIComponent(hourAgo())}&to=${encodeURIComponent(inAMinute())}`;
    for (const filters of ['', 'sub_id=sub-a', 'status=rejected', 'click_id=click-2']) {
      const q = [range, filters].filter(Boolean).join('&');
      const csv = await csvOf(q);
      expect(csv.status).toBe(200);
      expect(csv.type).toMatch(/^text\/csv/);
      const [header, ...lines] = csv.text.trimEnd().split('\r\n');
      expect(header!.split(',').slice(0, 4)).toEqual(['id', 'external_id', 'status', 'our_status']);
      expect(lines.map((l) => l.split(',')[0])).toEqual((await listed(`${q}&limit=200`)).map((r) => r.id));
    }
    const all = (await csvOf(range)).text;
    expect(all).toContain("'=cmd");
    expect(
      all
        .split('\r\n')
        .flatMap((l) => l.split(','))
        .filter((c) => /^[=+\-@]/.test(c)),
    ).toEqual([]);
  });

  it('needs a range of at most 31 days', async () => {
    expect((await csvOf('')).status).toBe(422);
    const long = `from=${encodeURIComponent(new Date(Date.now() - 40 * 86_400_000).toISOString())}&to=${encodeURIComponent(inAMinute())}`;
    const refused = await csvOf(long);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('at most 31 days');
    expect((await csvOf(`from=${encodeURIComponent(inAMinute())}&to=${encodeURIComponent(hourAgo())}`)).status).toBe(
      422,
    );
  });

  it('is in the audit log with the person, the range and the names of the filters', async () => {
    const from = hourAgo();
    await csvOf(`from=${encodeURIComponent(from)}&to=${encodeURIComponent(inAMinute())}&sub_id=sub-a`);
    const entries = await auditEntries(manager, acme.id, 'lead.export');
    expect(entries[0]).toMatchObject({ actor_name: ADMIN_NAME, details: { from, filters: ['sub_id'] } });
  });
});

describe("the person's time zone", () => {
  const setZone = (time_zone: string | null) =>
    admin.client.patch<{ time_zone: string }>('/portal/api/me', { time_zone });
  afterAll(async () => {
    await setZone(null);
  });

  it('is a known IANA name of their own, used by the overview and the CSV', async () => {
    const refused = await setZone('Mars/Olympus_Mons');
    expect(refused).toMatchObject({ status: 422, body: { error: 'invalid_request' } });
    expect(JSON.stringify(refused.body)).toContain('Mars/Olympus_Mons');
    expect((await admin.client.get('/portal/api/me')).body).toMatchObject({ time_zone: 'UTC' });

    // A zone whose day differs from UTC's at this hour (11 hours behind, or 14 ahead).
    const zone = new Date().getUTCHours() < 10 ? 'Pacific/Pago_Pago' : 'Pacific/Kiritimati';
    const offset = zone === 'Pacific/Pago_Pago' ? '-11:00' : '+14:00';
    expect(await setZone(zone)).toMatchObject({ status: 200, body: { time_zone: zone, account: { time_zone: zone } } });
    const today = localTime(new Date(), zone).date;
    expect(today).not.toBe(new Date().toISOString().slice(0, 10));
    const overview = (await admin.client.get('/portal/api/overview?days=1')).body;
    expect(overview).toMatchObject({ time_zone: zone, from: today, to: today });
    const csv = await csvOf(`from=${encodeURIComponent(hourAgo())}&to=${encodeURIComponent(inAMinute())}`);
    const created = csv.text.split('\r\n')[1]!.split(',').at(-2)!;
    expect(created).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\${offset}$`));

    // null: their partner's zone again (UTC here).
    expect(await setZone(null)).toMatchObject({
      status: 200,
      body: { time_zone: 'UTC', account: { time_zone: null } },
    });
  });
});

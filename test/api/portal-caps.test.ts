import type { ManagerClient } from '../support/manager-client';
import { sendLead, type FedPartner } from '../support/portal-data';
import type { PortalPerson } from '../support/portal-client';
import { startPortalAdminStack } from '../support/portal-admin-stack';
import type { TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The portal's overview for every day: each of the partner's caps with what the current day or hour
// has used of it and what is left, read from the counters the processor decides leads by, in the
// partner's time zone; and the figures over the days the partner chooses.
let app: TestApp;
let manager: ManagerClient;
let acme: FedPartner;
let admin: PortalPerson;
type Caps = {
  time_zone: string;
  caps: { scope: string; country: string | null; limit: number; used: number; left: number }[];
};

beforeAll(async () => {
  ({ app, manager, acme, admin } = await startPortalAdminStack());
}, 120_000);

afterAll(async () => {
  await app?.destroy();
});

it('shows no caps for a partner without any', async () => {
  expect((await admin.client.get<Caps>('/portal/api/caps')).body).toEqual({ time_zone: 'UTC', caps: [] });
});

it('shows each cap, its use this day or hour and what is left, in the partner time zone', async () => {
  // Kathmandu (+05:45): its clock hour turns at :15 UTC, away from a test run at the top of the hour.
  const caps = { daily: 5, hourly: 4, countries: { GB: { daily: 2 }, DE: { hourly: 1 } } };
  const patched = await manager.patch(`/api/affiliates/${acme.id}`, { caps, time_zone: 'Asia/Kathmandu' });
  expect(patched.status).toBe(200);
  for (const n of [1, 2]) expect((await sendLead(app.url, acme, { external_id: `gb-${n}` })).status).toBe('accepted');
  const over = await sendLead(app.url, acme, { external_id: 'gb-3' });
  expect(over.answer.body).toMatchObject({ status: 'rejected', reason: 'cap_reached:country_daily' });
  const shown = (await admin.client.get<Caps>('/portal/api/caps')).body;
  expect(shown.time_zone).toBe('Asia/Kathmandu');
  expect(shown.caps).toEqual([
    { scope: 'partner_daily', country: null, limit: 5, used: 2, left: 3 },
    { scope: 'partner_hourly', country: null, limit: 4, used: 2, left: 2 },
    { scope: 'country_hourly', country: 'DE', limit: 1, used: 0, left: 1 },
    { scope: 'country_daily', country: 'GB', limit: 2, used: 2, left: 0 },
  ]);
});

it('shows the overview of the days chosen, checked as the reports check them', async () => {
  // Today in the partner's own time zone (Kathmandu since the test above): its reporting days.
  const { time_zone } = (await admin.client.get<Caps>('/portal/api/caps')).body;
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: time_zone }).format(new Date());
  const chosen = await until(
    async () => {
      const res = await admin.client.get<{ days: number; from: string; to: string; totals: { received: number } }>(
        `/portal/api/overview?from=${day}&to=${day}`,
      );
      return res.body.totals?.received === 3 ? res.body : null;
    },
    45_000,
    'the overview of today to count the three leads',
  );
  expect(chosen).toMatchObject({ days: 1, from: day, to: day });
  expect((await admin.client.get('/portal/api/overview?from=2026-01-02&to=2026-01-01')).status).toBe(422);
  expect((await admin.client.get('/portal/api/overview?from=2024-01-01&to=2026-01-01')).status).toBe(422);
  const csv = await fetch(`${app.url}/portal/api/overview.csv?from=${day}&to=${day}`, {
    headers: { cookie: admin.client.cookie! },
  });
  expect(csv.headers.get('content-disposition')).toContain(`overview-${day}-${day}.csv`);
});

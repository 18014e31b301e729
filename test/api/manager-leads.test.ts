import { CallbackReceiver } from '../support/callback-receiver';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// What the console reads besides the existing routes: a lead by id or by its partner's external id
// (status, history, callbacks sent; nothing personal, no money) and the overview's per-minute counts.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let partner: { id: string; api_key: string; hmac_secret: string; callback_secret: string };
let leadId: string;

const PHONE = '+447911123457';
const EMAIL = 'lookup.lead@example.com';

type Lead = {
  id: string;
  status: string;
  history: { event: string; event_id: string }[];
  deliveries: { state: string; event_id: string }[];
};
type Minutes = { minutes: { counts: Record<string, number> }[] };

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  partner = (
    await manager.post<typeof partner>('/api/affiliates', { name: 'Lookup', callback_url: receiver.url('/lookup') })
  ).body;
  receiver.route('/lookup', partner.callback_secret);
  const sent = await new PartnerClient(app.url, partner).submitLead({
    external_id: 'ext-1',
    phone: PHONE,
    email: EMAIL,
    country: 'GB',
    source: 'search',
  });
  expect(sent.body.status).toBe('accepted');
  leadId = sent.body.id as string;
  await until(
    async () => (await manager.get<Lead>(`/api/leads/${leadId}`)).body.deliveries?.[0]?.state === 'delivered',
    30000,
    'the callback to be delivered',
  );
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

describe('lead lookup', () => {
  it('shows a lead by le-<n>: status, history as events, and the callbacks sent, in event order', async () => {
    const res = await manager.get<Lead>(`/api/leads/${leadId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: leadId,
      affiliate_id: partner.id,
      external_id: 'ext-1',
      is_depositor: false,
      details: { country: 'GB', source: 'search' },
    });
    expect(res.body.history[0]).toMatchObject({
      event_id: `${leadId}:0`,
      event: 'lead.accepted',
      from: null,
      to: 'new',
      source: 'intake',
    });
    expect(res.body.deliveries.map((d) => d.event_id)).toEqual(
      res.body.history.map((h) => h.event_id).slice(0, res.body.deliveries.length),
    );
    expect(res.body.deliveries[0]).toMatchObject({
      id: expect.stringMatching(/^dl-/),
      state: 'delivered',
      last_http_status: 200,
    });
  });

  it('finds the same lead by partner and external id', async () => {
    const byRef = await manager.get(`/api/affiliates/${partner.id}/leads/ext-1`);
    expect(byRef.status).toBe(200);
    expect(byRef.body).toEqual((await manager.get(`/api/leads/${leadId}`)).body);
  });

  it('never carries a phone, an email, another personal field, a hash or money', async () => {
    const text = JSON.stringify((await manager.get(`/api/leads/${leadId}`)).body);
    for (const absent of [
      PHONE,
      '7911123457',
      EMAIL,
      '"phone":',
      '"email":',
      '_enc',
      '_hash',
      '"first_name',
      '"ip":',
      'amount',
      'currency',
      'idempotency_key',
    ]) {
      expect(text).not.toContain(absent);
    }
  });

  it('answers 404 for an unknown lead, an unknown external id or another partner’s, and 401 without a token', async () => {
    expect((await manager.get('/api/leads/le-999999999')).status).toBe(404);
    expect((await manager.get(`/api/affiliates/${partner.id}/leads/ext-unknown`)).status).toBe(404);
    expect((await manager.get('/api/affiliates/pa-0000000000000000/leads/ext-1')).status).toBe(404);
    expect((await manager.withToken(null).get(`/api/leads/${leadId}`)).body).toMatchObject({
      error: 'manager_unauthorized',
    });
  });
});

describe('overview', () => {
  it('counts intake requests and callbacks by outcome per minute, from the stored minutes every instance writes', async () => {
    const total = (chart: Minutes, outcome: string) => chart.minutes.reduce((n, m) => n + (m.counts[outcome] ?? 0), 0);
    const overview = async () =>
      (await manager.get<{ window_minutes: number; charts: Record<'leads' | 'callbacks', Minutes> }>('/api/overview'))
        .body;
    // Each process stores its minutes every few seconds.
    await until(
      async () => total((await overview()).charts.callbacks, 'delivered') >= 1,
      15000,
      'the callback in the overview',
    );
    const body = await overview();
    expect(body.window_minutes).toBe(60);
    expect(body.charts.leads.minutes).toHaveLength(60);
    expect(total(body.charts.leads, 'accepted')).toBe(1);
    expect((await manager.withToken(null).get('/api/overview')).status).toBe(401);
  });
});

import type { DeliveryView } from '../../src/manager/delivery-queue';
import { leadSummary, type LeadView } from '../../src/manager/lead-view';
import { figures } from '../../src/manager/reports/report-rows';
import { callbackAddressProblem, integrationView, loadSnippets } from '../../src/portal/api/routes/integration-view';
import { overviewRange } from '../../src/portal/api/routes/overview-routes';
import { excerpt, portalDelivery, portalLead, portalTotals } from '../../src/portal/api/routes/portal-views';
import type { LeadDoc, PartnerDoc } from '../../src/shared/mongo/documents';

const at = (s: number) => new Date(s * 1000);

const leadDoc: LeadDoc = {
  _id: 'le-9',
  seq: 9,
  partner_id: 'pa-1',
  external_id: 'e-9',
  idempotency_key: 'k',
  status: 'ftd',
  is_depositor: true,
  client_id: 'cl-3',
  agent_id: 'ag-7',
  reason: null,
  country_code: 'GB',
  source: 'fb',
  created_at: at(0),
  updated_at: at(30),
  history: [
    {
      from: null,
      to: 'new',
      at: at(0),
      why: 'accepted at intake',
      source: 'intake',
      event: 'lead.accepted',
      is_depositor: false,
    },
    {
      from: 'new',
      to: 'new',
      at: at(1),
      why: 'assigned',
      source: 'distribution',
      event: null,
      is_depositor: false,
      agent_id: 'ag-7',
    },
    {
      from: 'new',
      to: 'contacted',
      at: at(10),
      why: 'called',
      source: 'agent-action:x',
      event: 'lead.status_changed',
      is_depositor: false,
    },
    {
      from: 'contacted',
      to: 'ftd',
      at: at(30),
      why: 'deposit',
      source: 'deposit:d-1',
      event: 'lead.ftd',
      is_depositor: true,
    },
  ],
};

const delivery = (over: Partial<DeliveryView>): DeliveryView => ({
  id: 'dl-1',
  kind: 'callback',
  event: 'lead.accepted',
  event_id: 'le-9:0',
  affiliate_id: 'pa-1',
  lead_id: 'le-9',
  state: 'delivered',
  attempts_made: 1,
  attempts_left: 0,
  next_attempt_at: null,
  last_http_status: 200,
  last_response_body: 'ok',
  last_error: null,
  attempts: [{ attempt: 1, at: at(0), http_status: 200, error: null, duration_ms: 12, response_body: 'x'.repeat(500) }],
  manual_retries: [{ at: at(5), by: 'acc-manager-9' }],
  test: false,
  created_at: at(0),
  updated_at: at(0),
  ...over,
});

describe("the portal's views of a partner's own data", () => {
  it("a lead's timeline holds only the events a callback or postback went for, in the partner's codes, with no agent", () => {
    const view: LeadView = {
      ...leadSummary(leadDoc),
      deliveries: [
        delivery({}),
        delivery({ id: 'dl-2', event: 'lead.ftd', event_id: 'le-9:3', state: 'dead', kind: 'postback' }),
      ],
    };
    const lead = portalLead(view, '+44 79** ***456', { status_mapping: { ftd: 'DEPOSIT' } });
    expect(lead.timeline).toEqual([
      {
        event_id: 'le-9:0',
        event: 'lead.accepted',
        status: 'new',
        our_status: 'new',
        at: at(0),
        reason: null,
        deliveries: [{ id: 'dl-1', kind: 'callback', state: 'delivered' }],
      },
      {
        event_id: 'le-9:3',
        event: 'lead.ftd',
        status: 'DEPOSIT',
        our_status: 'ftd',
        at: at(30),
        reason: null,
        deliveries: [{ id: 'dl-2', kind: 'postback', state: 'dead' }],
      },
    ]);
    expect(lead).toMatchObject({
      id: 'le-9',
      status: 'DEPOSIT',
      our_status: 'ftd',
      phone: '+44 79** ***456',
      country: 'GB',
      source: 'fb',
    });
    const text = JSON.stringify(lead);
    for (const hidden of ['ag-7', 'cl-3', 'agent', 'client_id', 'deposit:d-1', 'agent-action', 'risk', 'pa-1'])
      expect(text).not.toContain(hidden);
  });

  it('a delivery keeps time, code, a short excerpt and duration of each attempt, and when it was retried, never by whom', () => {
    const view = portalDelivery(delivery({}));
    expect(view.attempts).toEqual([
      { attempt: 1, at: at(0), http_status: 200, duration_ms: 12, error: null, excerpt: `${'x'.repeat(200)}…` },
    ]);
    expect(view.retried_at).toEqual([at(5)]);
    expect(JSON.stringify(view)).not.toMatch(/acc-manager-9|affiliate_id|pa-1/);
    expect(excerpt(null)).toBeNull();
    expect(excerpt('short')).toBe('short');
  });

  it('totals name the FTD rate and the chargeback rate; no money', () => {
    const t = portalTotals(
      figures({ received: 10, accepted: 8, ftd: 2, chargebacks: 1, rejected_blocked_country: 1, duplicates: 1 }),
    );
    expect(t).toMatchObject({
      received: 10,
      accepted: 8,
      ftd: 2,
      ftd_rate: 0.25,
      chargebacks: 1,
      chargeback_rate: 0.5,
      duplicates: 1,
    });
    expect(Object.keys(t)).not.toContain('rtd');
  });

  it('an overview covers today, or the last 7 or 30 days up to today (UTC), or the days chosen', () => {
    const now = new Date('2025-03-10T23:59:00Z');
    expect(overviewRange({ days: 1 }, now, 'UTC')).toEqual({ from: '2025-03-10', to: '2025-03-10' });
    expect(overviewRange({ days: 7 }, now, 'UTC')).toEqual({ from: '2025-03-04', to: '2025-03-10' });
    expect(overviewRange({ days: 30 }, now, 'UTC')).toEqual({ from: '2025-02-09', to: '2025-03-10' });
    expect(overviewRange({ days: 7, from: '2025-01-01', to: '2025-01-31' }, now, 'UTC')).toEqual({
      from: '2025-01-01',
      to: '2025-01-31',
    });
  });
});

describe('the integration page', () => {
  const partner = {
    _id: 'pa-1',
    name: 'Acme',
    callback_url: 'https://hooks.acme.example/cb',
    callback_events: ['lead.ftd'],
    status_mapping: {},
    rate_limits: { intake_per_minute: 600 },
    signature_scheme: 'standard-webhooks',
    key_rotated_at: null,
    api_key_hash: 'h'.repeat(64),
    hmac_secret_enc: 'enc-hmac',
    callback_secret_enc: 'enc-cb',
    postback_secret_enc: 'enc-token',
    postbacks: { url: 'https://t.example/pb?cid={click_id}&s={status}', events: ['lead.ftd'] },
  } as unknown as PartnerDoc;

  it('shows quotas with their use, the signing scheme and the snippets, never a secret', () => {
    const view = integrationView(
      partner,
      { intake: 42, status: 0 },
      {
        baseUrl: 'https://x.example/api/v1/inbound',
        quotas: { intakePerMinute: 60, statusPerMinute: 120 },
        toleranceS: 300,
        snippets: loadSnippets(),
      },
    );
    expect(view.rate_limits).toEqual({
      window_seconds: 60,
      intake: { per_minute: 600, used: 42 },
      status: { per_minute: 120, used: 0 },
    });
    expect(view.signing.callback_scheme).toBe('standard-webhooks');
    expect(view.postbacks).toEqual({ events: ['lead.ftd'], token_set: true });
    expect(view.verification_snippets.map((s) => s.language).sort()).toEqual(['php', 'python', 'typescript']);
    expect(JSON.stringify(view)).not.toMatch(/enc-|hhhh/);
  });

  it('refuses a callback URL naming a private or loopback address, unless private networks are allowed', () => {
    const strict = { allowPrivateNetworks: false };
    expect(callbackAddressProblem('https://127.0.0.1/cb', strict)).toMatch(/public address \(loopback\)/);
    expect(callbackAddressProblem('https://10.1.2.3/cb', strict)).toMatch(/private/);
    expect(callbackAddressProblem('https://[::1]/cb', strict)).toMatch(/loopback/);
    expect(callbackAddressProblem('https://localhost:8443/cb', strict)).toMatch(/localhost/);
    expect(callbackAddressProblem('https://8.8.8.8/cb', strict)).toBeNull();
    expect(callbackAddressProblem('https://hooks.acme.example/cb', strict)).toBeNull();
    expect(callbackAddressProblem('https://127.0.0.1/cb', { allowPrivateNetworks: true })).toBeNull();
  });
});

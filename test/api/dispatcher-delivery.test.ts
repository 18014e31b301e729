import { deliveryId } from '../../src/shared/ids';
import type { LeadEvent, PartnerSettings } from '../../src/shared/schemas';
import { CallbackReceiver, failFirst } from '../support/callback-receiver';
import { deliveryRecord, leadEvent, publishLeadEvents } from '../support/lead-events';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// What a partner receives: exact bytes and headers per event kind, status mapping, the whitelist,
// repeats, and what is recorded. The receiver verifies signatures on its own (node:crypto).
let app: TestApp;
let receiver: CallbackReceiver;
const secrets: Record<string, string> = {};
const ids: Record<string, string> = {};

async function partner(name: string, settings: PartnerSettings) {
  const { partner: p, secrets: s } = await servicesOf(app.runtime).partners.create({ name, ...settings });
  ids[name] = p.id;
  secrets[name] = s.callback_secret;
  return p.id;
}

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'dispatcher', SERVICE_NAME: 'AcmeLeads', CALLBACK_RETRY_DELAYS_S: '1,1,1,1' });
  receiver = await new CallbackReceiver().start();
  await partner('mapped', {
    callback_url: receiver.url('/mapped'),
    status_mapping: { new: 'NEW_LEAD', ftd: 'DEPOSITED', rejected: 'REJ' },
  });
  await partner('ftd-only', { callback_url: receiver.url('/ftd-only'), callback_events: ['lead.ftd'] });
  await partner('no-url', {});
  await partner('redirects', { callback_url: receiver.url('/redirects') });
  await partner('moves', { callback_url: receiver.url('/moves-old') });
  receiver.route('/mapped', secrets.mapped!);
  receiver.route('/ftd-only', secrets['ftd-only']!);
  receiver.route('/redirects', secrets.redirects!, (_req, res) =>
    res.writeHead(302, { location: receiver.url('/redirect-target') }).end(),
  );
  receiver.route('/redirect-target', secrets.redirects!);
  receiver.route('/moves-old', secrets.moves!, failFirst(Infinity));
  receiver.route('/moves-new', secrets.moves!);
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

describe('callback content', () => {
  const lead = 'le-501';
  const at = '2026-11-22T02:00:00.000Z';
  const events: LeadEvent[] = [];

  beforeAll(async () => {
    const p = ids.mapped!;
    events.push(
      leadEvent(p, { lead_id: lead, event_id: `${lead}:0`, external_lead_id: 'ext-501', occurred_at: at }),
      leadEvent(p, {
        lead_id: lead,
        event_id: `${lead}:1`,
        external_lead_id: 'ext-501',
        event: 'lead.status_changed',
        our_status: 'contacted',
        from_status: 'new',
        occurred_at: at,
      }),
      leadEvent(p, {
        lead_id: lead,
        event_id: `${lead}:2`,
        external_lead_id: 'ext-501',
        event: 'lead.ftd',
        our_status: 'ftd',
        is_depositor: true,
        occurred_at: at,
      }),
      leadEvent(p, {
        lead_id: lead,
        event_id: `${lead}:3`,
        external_lead_id: 'ext-501',
        event: 'lead.rtd',
        our_status: 'rtd',
        is_depositor: true,
        occurred_at: at,
      }),
      leadEvent(p, {
        lead_id: 'le-502',
        event_id: 'le-502:0',
        external_lead_id: 'ext-502',
        event: 'lead.rejected',
        our_status: 'rejected',
        reason: 'country_blocked:KP',
        occurred_at: '2026-11-22T04:00:00+02:00',
      }),
    );
    await publishLeadEvents(app.runtime, events);
    await receiver.waitFor('/mapped', 5);
  });

  const bodyOf = (event: string) => receiver.at('/mapped').find((r) => r.body.event === event)!;

  it('sends the exact body of spec 2.4 for each event kind, with status mapped and our_status canonical', () => {
    const common = '"external_lead_id":"ext-501","internal_id":"le-501"';
    expect(bodyOf('lead.accepted').raw).toBe(
      `{"event":"lead.accepted",${common},"status":"NEW_LEAD","our_status":"new","is_depositor":false,"timestamp":"${at}"}`,
    );
    expect(bodyOf('lead.status_changed').raw).toBe(
      `{"event":"lead.status_changed",${common},"status":"contacted","our_status":"contacted","is_depositor":false,"timestamp":"${at}","from_status":"new"}`,
    );
    expect(bodyOf('lead.ftd').raw).toBe(
      `{"event":"lead.ftd",${common},"status":"DEPOSITED","our_status":"ftd","is_depositor":true,"timestamp":"${at}"}`,
    );
    expect(bodyOf('lead.rtd').raw).toBe(
      `{"event":"lead.rtd",${common},"status":"rtd","our_status":"rtd","is_depositor":true,"timestamp":"${at}"}`,
    );
    expect(bodyOf('lead.rejected').raw).toBe(
      '{"event":"lead.rejected","external_lead_id":"ext-502","internal_id":"le-502","status":"REJ","our_status":"rejected","is_depositor":false,"timestamp":"2026-11-22T02:00:00.000Z","reason":"country_blocked:KP"}',
    );
  });

  it('sends the headers of spec 6, signed with the partner callback secret', () => {
    for (const r of receiver.at('/mapped')) {
      expect(r.method).toBe('POST');
      expect(r.signatureValid).toBe(true);
      expect(r.headers['x-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toBe('AcmeLeads-Webhook/1.0');
      expect(r.headers['x-event']).toBe(r.body.event);
      expect(r.headers['x-timestamp']).toMatch(/^\d+$/);
      expect(Math.abs(Number(r.headers['x-timestamp']) - r.at / 1000)).toBeLessThan(5);
      expect(r.headers).not.toHaveProperty('location');
    }
  });

  it('records each delivery: delivered, one attempt, the answer', async () => {
    const record = await deliveryRecord(app.runtime, events[0]!);
    expect(record).toMatchObject({
      state: 'delivered',
      partner_id: ids.mapped,
      event_name: 'lead.accepted',
      lead_id: lead,
      attempts_made: 1,
      attempts_left: 0,
      next_attempt_at: null,
      last_http_status: 200,
      last_response_body: 'ok',
      last_error: null,
      manual_retries: [],
    });
    expect(record!.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(Date),
        http_status: 200,
        error: null,
        duration_ms: expect.any(Number),
        response_body: 'ok',
      },
    ]);
  });
});

describe('what is sent to whom', () => {
  it('sends only whitelisted events, and nothing to a partner without a callback URL', async () => {
    const whitelisted = leadEvent(ids['ftd-only']!, { event: 'lead.ftd', our_status: 'ftd', is_depositor: true });
    const filtered = leadEvent(ids['ftd-only']!);
    const noUrl = leadEvent(ids['no-url']!);
    await publishLeadEvents(app.runtime, [filtered, noUrl, whitelisted]);
    const [got] = await receiver.waitFor('/ftd-only', 1);
    expect(got!.body).toMatchObject({ event: 'lead.ftd', internal_id: whitelisted.lead_id });
    // The filtered events were consumed before the whitelisted one in their partitions; give stragglers a moment.
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at('/ftd-only')).toHaveLength(1);
    expect(await deliveryRecord(app.runtime, filtered)).toBeNull();
    expect(await deliveryRecord(app.runtime, noUrl)).toBeNull();
  });

  it('delivers a repeated event (same event_id) once', async () => {
    const event = leadEvent(ids.mapped!);
    await publishLeadEvents(app.runtime, [event]);
    await until(async () => (await deliveryRecord(app.runtime, event))?.state === 'delivered', 10000, 'first delivery');
    await publishLeadEvents(app.runtime, [event]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.at('/mapped').filter((r) => r.body.internal_id === event.lead_id)).toHaveLength(1);
    expect((await deliveryRecord(app.runtime, event))!.attempts).toHaveLength(1);
  });

  it('skips a message it cannot decode and carries on', async () => {
    await app.runtime.producer.send({
      topic: app.runtime.topics.leadEvents,
      messages: [{ key: 'le-1', value: Buffer.from('{"not":"wire format"}') }],
    });
    const event = leadEvent(ids.mapped!);
    await publishLeadEvents(app.runtime, [event]);
    await until(
      async () => (await deliveryRecord(app.runtime, event))?.state === 'delivered',
      10000,
      'delivery after a bad message',
    );
    const undecodable = await app.runtime.metrics
      .getSingleMetric('lead_intake_callback_undecodable_messages_total')!
      .get();
    expect(undecodable.values.find((v) => v.labels.topic === 'lead_events')?.value).toBe(1);
  });
});

describe('redirects', () => {
  it('are not followed: a 3xx counts as a permanent failure (2 attempts, then dead)', async () => {
    const event = leadEvent(ids.redirects!);
    await publishLeadEvents(app.runtime, [event]);
    const record = await until(
      async () => {
        const r = await deliveryRecord(app.runtime, event);
        return r?.state === 'dead' ? r : null;
      },
      15000,
      'dead delivery',
    );
    expect(record.attempts.map((a) => a.http_status)).toEqual([302, 302]);
    expect(receiver.at('/redirects')).toHaveLength(2);
    expect(receiver.at('/redirect-target')).toHaveLength(0);
  });
});

describe('partner settings and recovery', () => {
  it('reads the callback URL at attempt time: a retry goes to the URL the manager set meanwhile', async () => {
    const event = leadEvent(ids.moves!);
    await publishLeadEvents(app.runtime, [event]);
    await receiver.waitFor('/moves-old', 1);
    await servicesOf(app.runtime).partners.update(ids.moves!, { callback_url: receiver.url('/moves-new') });
    const [got] = await receiver.waitFor('/moves-new', 1, 10000);
    expect(got!.signatureValid).toBe(true);
    expect(receiver.at('/moves-old')).toHaveLength(1);
  });

  it('attempts again an event whose record was never written (a crash before it), and never one whose record exists', async () => {
    // A record written before a crash, its offset not committed: the replayed event is not sent again.
    const recorded = leadEvent(ids.mapped!);
    const now = new Date();
    await app.runtime.mongo.collections.deliveries.insertOne({
      _id: deliveryId(recorded.event_id, recorded.partner_id),
      event_id: recorded.event_id,
      event_name: recorded.event,
      partner_id: recorded.partner_id,
      lead_id: recorded.lead_id,
      event: recorded,
      state: 'delivered',
      attempts_made: 1,
      attempts_left: 0,
      next_attempt_at: null,
      last_http_status: 200,
      last_response_body: 'ok',
      last_error: null,
      attempts: [],
      manual_retries: [],
      created_at: now,
      updated_at: now,
    });
    const fresh = leadEvent(ids.mapped!);
    await publishLeadEvents(app.runtime, [recorded, fresh]);
    await until(
      async () => (await deliveryRecord(app.runtime, fresh))?.state === 'delivered',
      10000,
      'the fresh event to be delivered',
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at('/mapped').filter((r) => r.body.internal_id === fresh.lead_id)).toHaveLength(1);
    expect(receiver.at('/mapped').filter((r) => r.body.internal_id === recorded.lead_id)).toHaveLength(0);
  });

  it('reports both consumers ready', async () => {
    const res = await fetch(`${app.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ checks: { 'dispatcher-events': 'ok' } });
  });
});

describe('metrics', () => {
  it('counts deliveries by event and outcome, skips included, and exposes them', async () => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    // Labelled per partner too: sum the partners' series.
    const { values } = await app.runtime.metrics.getSingleMetric('lead_intake_callback_deliveries_total')!.get();
    const total = (outcome: string) =>
      values
        .filter((v) => v.labels.event === 'lead.accepted' && v.labels.outcome === outcome)
        .reduce((sum, v) => sum + v.value, 0);
    expect(total('delivered')).toBeGreaterThan(0);
    expect(total('skipped')).toBe(2);
    expect(text).toMatch(
      /lead_intake_callback_deliveries_total\{event="lead\.accepted",outcome="delivered",partner_id="pa-[0-9a-f]+",test="false"\} [1-9]/,
    );
    expect(text).toMatch(
      /lead_intake_callback_deliveries_total\{event="lead\.accepted",outcome="dead",partner_id="pa-[0-9a-f]+",test="false"\} 1/,
    );
    expect(text).toMatch(/lead_intake_callback_blocked_leads \d+/);
    expect(text).toMatch(/lead_intake_callback_attempt_duration_seconds_count\{verdict="delivered"\} [1-9]/);
    expect(text).not.toMatch(/le-\d+/);
  });
});

import type { LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { deliveryRecord, leadEvent, publishLeadEvents } from '../support/lead-events';
import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// Endpoint health and auto-pause with the real dispatcher, topics and store: an
// endpoint failing every attempt for ENDPOINT_PAUSE_AFTER_S (2 s here) is paused; new callbacks are
// held, neither sent nor dead; a manager is told; resume sends the held ones in order, at the endpoint's pace.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let partnerId: string;

interface Health {
  state: string;
  consecutive_failures: number;
  held: number;
  success_rate: number | null;
  last_success_at: string | null;
  gone: boolean;
}
type AuditPage = { items: { action: string; actor: string; details: Record<string, unknown> }[] };

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'ingress,dispatcher',
    CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
    ENDPOINT_PAUSE_AFTER_S: '2',
    ENDPOINT_PAUSE_MIN_FAILURES: '3',
    ENDPOINT_HEALTH_REPORT_MS: '200',
  });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  const res = await manager.post<{ id: string; callback_secret: string }>('/api/affiliates', {
    name: 'flaky',
    callback_url: receiver.url('/flaky'),
  });
  partnerId = res.body.id;
  receiver.route('/flaky', res.body.callback_secret, status(500, 'down'));
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

const health = async () => (await manager.get<Health>(`/api/affiliates/${partnerId}/endpoint-health`)).body;
const healthWhere = (what: string, ok: (h: Health) => boolean, timeoutMs = 20000) =>
  until(
    async () => {
      const h = await health();
      return ok(h) ? h : null;
    },
    timeoutMs,
    what,
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Two events of one lead, in order.
function twoEvents(): LeadEvent[] {
  const first = leadEvent(partnerId);
  return [
    first,
    leadEvent(partnerId, {
      lead_id: first.lead_id,
      event_id: `${first.lead_id}:1`,
      event: 'lead.status_changed',
      our_status: 'assigned',
      from_status: 'new',
    }),
  ];
}

describe('an endpoint that fails every attempt', () => {
  // Made once the partner exists.
  let before: LeadEvent[] = [];
  let during: LeadEvent[] = [];
  beforeAll(() => {
    before = twoEvents();
    during = [...twoEvents(), ...twoEvents()];
  });

  it('reports its health while it fails: no success, failures in a row', async () => {
    await publishLeadEvents(app.runtime, before);
    const h = await healthWhere('two failures reported', (x) => x.consecutive_failures >= 2, 10000);
    expect(h).toMatchObject({ success_rate: 0, last_success_at: null, gone: false });
    const gauge = await app.runtime.metrics
      .getSingleMetric('lead_intake_callback_endpoint_consecutive_failures')!
      .get();
    expect(gauge.values.find((v) => v.labels.partner_id === partnerId)?.value).toBeGreaterThanOrEqual(2);
  });

  it('is paused after failing for ENDPOINT_PAUSE_AFTER_S; a manager is told (audit, metrics)', async () => {
    await healthWhere('the endpoint paused', (x) => x.state === 'paused');
    const audit = await manager.get<AuditPage>(`/api/audit-log?affiliate_id=${partnerId}&action=endpoint.paused`);
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({
      actor: 'system:dispatcher',
      details: { consecutive_failures: expect.any(Number) },
    });
    const pauses = await app.runtime.metrics.getSingleMetric('lead_intake_callback_endpoint_pauses_total')!.get();
    expect(pauses.values.find((v) => v.labels.partner_id === partnerId)?.value).toBe(1);
    await until(
      async () =>
        (await app.runtime.metrics.getSingleMetric('lead_intake_callback_endpoints_paused')!.get()).values[0]?.value ===
        1,
      5000,
      'the gate to know',
    );
  });

  it('holds new callbacks while paused: not sent, not dead', async () => {
    const sentBefore = receiver.at('/flaky').length;
    await publishLeadEvents(app.runtime, during);
    const records = await until(
      async () => {
        const rs = await Promise.all(during.map((e) => deliveryRecord(app.runtime, e)));
        return rs.every((r) => r?.held_by !== undefined) ? rs : null;
      },
      10000,
      'the new deliveries held',
    );
    expect(records.map((r) => [r!.state, r!.attempts_made])).toEqual(during.map(() => ['queued', 0]));
    // The first of each lead waits for the endpoint; the second for the first.
    expect(records.map((r) => r!.held_by)).toEqual([
      'endpoint_paused',
      records[0]!._id,
      'endpoint_paused',
      records[2]!._id,
    ]);
    await sleep(2500); // retries of the earlier deliveries were due meanwhile: held too
    expect(receiver.at('/flaky').length).toBe(sentBefore);
    const h = await healthWhere('held callbacks counted', (x) => x.held >= during.length);
    expect(h.state).toBe('paused');
    const first = await deliveryRecord(app.runtime, before[0]!);
    expect(first?.state).not.toBe('delivered');
  });

  it('refuses to resume an unknown partner (404) or an endpoint that is not paused (409, audited)', async () => {
    expect((await manager.post('/api/affiliates/pa-0000/endpoint/resume')).status).toBe(404);
    expect((await manager.get('/api/affiliates/pa-0000/endpoint-health')).status).toBe(404);
    const other = await manager.post<{ id: string }>('/api/affiliates', { name: 'fine' });
    const res = await manager.post(`/api/affiliates/${other.body.id}/endpoint/resume`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'conflict' });
    const audit = await manager.get<AuditPage>(`/api/audit-log?affiliate_id=${other.body.id}&action=endpoint.resume`);
    expect(audit.body.items[0]?.details).toEqual({ refused: 'conflict', http_status: 409 });
  });

  it("resumes on a manager's word: held callbacks go out, each lead in order, at the endpoint's pace", async () => {
    receiver.respond('/flaky', status(200, 'ok'));
    const sentBefore = receiver.at('/flaky').length;
    const res = await manager.post(`/api/affiliates/${partnerId}/endpoint/resume`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ affiliate_id: partnerId, state: 'resuming' });
    // The callbacks held as they came, and those whose retry fell due while paused.
    for (const e of [...during, ...before]) {
      await until(
        async () => (await deliveryRecord(app.runtime, e))?.state === 'delivered',
        20000,
        `${e.event_id} delivered`,
      );
    }
    const retried = await deliveryRecord(app.runtime, before[0]!);
    expect(retried!.attempts.at(-1)!.http_status).toBe(200);
    expect(retried!.attempts.slice(0, -1).every((a) => a.http_status === 500)).toBe(true);
    const sent = receiver.at('/flaky').slice(sentBefore);
    const ids = sent.map((r) => String(r.headers['x-event-id']));
    for (const lead of [during[0]!, during[2]!]) {
      expect(ids.indexOf(`${lead.lead_id}:0`)).toBeLessThan(ids.indexOf(`${lead.lead_id}:1`));
    }
    // Health comes as each dispatcher's report (every ENDPOINT_HEALTH_REPORT_MS, through the keeper),
    // behind the records: the resume has already set the state and streak, and a report may say
    // nothing is held while the released deliveries are still under way, before their successes.
    const h = await healthWhere(
      'the endpoint active and healthy again, its success reported',
      (x) => x.state === 'active' && x.consecutive_failures === 0 && x.held === 0 && x.last_success_at !== null,
    );
    const lastSuccess = await app.runtime.metrics
      .getSingleMetric('lead_intake_callback_endpoint_last_success_timestamp_seconds')!
      .get();
    expect(lastSuccess.values.find((v) => v.labels.partner_id === partnerId)?.value).toBe(
      Date.parse(h.last_success_at!) / 1000,
    );
    const audit = await manager.get<AuditPage>(`/api/audit-log?affiliate_id=${partnerId}&action=endpoint.resume`);
    expect(audit.body.items).toHaveLength(1);
  });
});

import { deliveryId } from '../../src/shared/ids';
import type { LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// A partner's tracker has health and auto-pause of its own: a tracker failing every
// postback is paused while the same partner's callbacks keep going; its postbacks are held, then
// sent in order once a manager resumes it (kind=postback).
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let partnerId: string;

interface Health {
  kind: string;
  state: string;
  consecutive_failures: number;
  held: number;
}

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
    name: 'tracked',
    callback_url: receiver.url('/cb'),
    postbacks: { url: `${receiver.url('/tracker')}?eid={event_id}` },
  });
  partnerId = res.body.id;
  receiver.route('/cb', res.body.callback_secret);
  receiver.route('/tracker', 'unused', status(503, 'down'));
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

const health = async (kind: string) =>
  (await manager.get<Health>(`/api/affiliates/${partnerId}/endpoint-health?kind=${kind}`)).body;
const postback = (e: LeadEvent) =>
  app.runtime.mongo.collections.deliveries.findOne({ _id: deliveryId(e.event_id, e.partner_id, 'postback') });

it('pauses the tracker alone, holds its postbacks, and sends them in order on resume', async () => {
  await publishLeadEvents(app.runtime, [leadEvent(partnerId), leadEvent(partnerId)]);
  const paused = await until(
    async () => {
      const h = await health('postback');
      return h.state === 'paused' ? h : null;
    },
    30_000,
    'the tracker paused',
  );
  expect(paused.kind).toBe('postback');
  expect(await health('callback')).toMatchObject({ kind: 'callback', state: 'active', consecutive_failures: 0 });
  const audit = await manager.get<{ items: { details: Record<string, unknown> }[] }>(
    `/api/audit-log?affiliate_id=${partnerId}&action=endpoint.paused`,
  );
  expect(audit.body.items.map((i) => i.details.kind)).toEqual(['postback']);

  // While paused: a new lead's callbacks go, its postbacks are held (neither sent nor dead).
  const first = leadEvent(partnerId);
  const events = [
    first,
    leadEvent(partnerId, {
      lead_id: first.lead_id,
      event_id: `${first.lead_id}:1`,
      event: 'lead.status_changed',
      our_status: 'contacted',
      from_status: 'new',
    }),
  ];
  const callbacksBefore = receiver.at('/cb').length;
  await publishLeadEvents(app.runtime, events);
  await receiver.waitFor('/cb', callbacksBefore + 2);
  await until(
    async () => ((await postback(events[0]!))?.held_by === 'endpoint_paused' ? true : null),
    20_000,
    'the postback held',
  );
  const trackerBefore = receiver.at('/tracker').length;

  receiver.respond('/tracker', status(200, 'ok'));
  const resumed = await manager.post(`/api/affiliates/${partnerId}/endpoint/resume?kind=postback`);
  expect(resumed.status).toBe(202);
  for (const e of events)
    await until(
      async () => ((await postback(e))?.state === 'delivered' ? true : null),
      30_000,
      `${e.event_id} delivered`,
    );
  const sent = receiver
    .at('/tracker')
    .slice(trackerBefore)
    .map((r) => new URL(r.url, 'http://x').searchParams.get('eid'));
  expect(sent.filter((eid) => eid?.startsWith(`${first.lead_id}:`))).toEqual([
    `${first.lead_id}:0`,
    `${first.lead_id}:1`,
  ]);
  expect((await health('postback')).state).toBe('active');
}, 90_000);

import type { LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { deliveryRecord, leadEvent, publishLeadEvents } from '../support/lead-events';
import { ManagerClient } from '../support/manager-client';
import { testConfig } from '../support/test-config';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// Held callbacks survive a dispatcher restart: the dispatcher that held them
// stops while the endpoint is paused, a new one starts and sees no new traffic at all on those
// partitions; a manager's resume still sends them, because held leads are read back as soon as a
// partition is assigned, not with its next batch.
const config = testConfig({
  ROLE: 'ingress,dispatcher',
  CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
  ENDPOINT_PAUSE_AFTER_S: '1',
  ENDPOINT_PAUSE_MIN_FAILURES: '2',
  ENDPOINT_HEALTH_REPORT_MS: '200',
});
let first: TestApp | null = null;
let second: TestApp | null = null;
let receiver: CallbackReceiver;

afterAll(async () => {
  await first?.stop();
  await receiver?.stop();
  await second?.destroy();
});

it('sends the callbacks held before a restart once the endpoint is resumed', async () => {
  first = await startTestApp({}, config);
  receiver = await new CallbackReceiver().start();
  let manager = new ManagerClient(first.url);
  const res = await manager.post<{ id: string; callback_secret: string }>('/api/affiliates', {
    name: 'down',
    callback_url: receiver.url('/down'),
  });
  const partnerId = res.body.id;
  receiver.route('/down', res.body.callback_secret, status(503, 'down'));
  const health = () => manager.get<{ state: string; held: number }>(`/api/affiliates/${partnerId}/endpoint-health`);

  await publishLeadEvents(first.runtime, [leadEvent(partnerId)]);
  await until(async () => (await health()).body.state === 'paused', 20000, 'the endpoint paused');
  const held: LeadEvent[] = [leadEvent(partnerId), leadEvent(partnerId)];
  await publishLeadEvents(first.runtime, held);
  await until(
    async () =>
      (await Promise.all(held.map((e) => deliveryRecord(first!.runtime, e)))).every(
        (r) => r?.held_by === 'endpoint_paused',
      ),
    10000,
    'held',
  );
  await first.stop();
  first = null;

  second = await startTestApp({}, config);
  manager = new ManagerClient(second.url);
  receiver.respond('/down', status(200, 'ok'));
  const sentBefore = receiver.at('/down').length;
  expect((await manager.post(`/api/affiliates/${partnerId}/endpoint/resume`)).status).toBe(202);
  for (const e of held)
    await until(
      async () => (await deliveryRecord(second!.runtime, e))?.state === 'delivered',
      20000,
      `${e.event_id} delivered`,
    );
  const ids = receiver
    .at('/down')
    .slice(sentBefore)
    .map((r) => r.headers['x-event-id']);
  expect(ids).toEqual(expect.arrayContaining(held.map((e) => e.event_id)));
  await until(async () => (await health()).body.held === 0, 10000, 'nothing held');
});

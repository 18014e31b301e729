import type { DeliveryDoc } from '../../src/shared/mongo/documents';
import { CallbackReceiver } from '../support/callback-receiver';
import { deliveryRecord, leadEvent, publishLeadEvents } from '../support/lead-events';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// Production settings: callbacks only over HTTPS and never to loopback, private or link-local
// addresses. Each refusal is recorded on the delivery and counted; nothing reaches the receiver.
let app: TestApp;
let receiver: CallbackReceiver;

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'dispatcher',
    CALLBACK_ALLOW_PRIVATE_NETWORKS: 'false',
    CALLBACK_ALLOW_HTTP: 'false',
    CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
  });
  receiver = await new CallbackReceiver().start();
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

async function deadDelivery(callbackUrl: string): Promise<DeliveryDoc> {
  const { partner, secrets } = await servicesOf(app.runtime).partners.create({
    name: 'ssrf',
    callback_url: callbackUrl,
  });
  receiver.route(new URL(callbackUrl).pathname, secrets.callback_secret);
  const event = leadEvent(partner.id);
  await publishLeadEvents(app.runtime, [event]);
  return until(
    async () => {
      const r = await deliveryRecord(app.runtime, event);
      return r?.state === 'dead' ? r : null;
    },
    15000,
    `dead delivery to ${callbackUrl}`,
  );
}

it.each([
  ['a loopback address', () => receiver.url('/literal').replace('http:', 'https:'), 'address_refused:loopback'],
  [
    'a name resolving to loopback',
    () => receiver.url('/by-name').replace('http://127.0.0.1', 'https://localhost'),
    'address_refused:loopback',
  ],
  [
    'a link-local address (cloud metadata)',
    () => 'https://169.254.169.254/latest/meta-data',
    'address_refused:linkLocal',
  ],
  ['plain http', () => 'http://partner.example/hook', 'https_required'],
])('refuses %s and records why', async (_what, url, error) => {
  const record = await deadDelivery(url());
  // A refused destination counts as a permanent failure: one more retry (the URL may be fixed), then dead.
  expect(record.attempts.map((a) => a.error)).toEqual([error, error]);
  expect(record.last_error).toBe(error);
  expect(record.last_http_status).toBeNull();
});

it('sent nothing and counted the refusals', async () => {
  expect(receiver.received).toHaveLength(0);
  const deliveries = await app.runtime.metrics.getSingleMetric('lead_intake_callback_deliveries_total')!.get();
  const refused = deliveries.values
    .filter((v) => v.labels.outcome === 'refused_address')
    .reduce((sum, v) => sum + v.value, 0);
  expect(refused).toBe(6);
});

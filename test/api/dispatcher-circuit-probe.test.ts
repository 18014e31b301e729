import { CallbackReceiver } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { servicesOf } from '../support/manager-services';
import { startTestApp, type TestApp } from '../support/test-app';

// A delivery that goes as its endpoint's circuit probe again and again while the endpoint stays down
// spends none of its attempts on the failed probes: it is held as the others are, and delivered once
// the endpoint is back, however long it was down.
let app: TestApp;
let back: CallbackReceiver | undefined;

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'dispatcher',
    CALLBACK_RETRY_DELAYS_S: '1,1,1,1', // five attempts in all, a probe every second
    CALLBACK_TIMEOUT_MS: '5000',
    ENDPOINT_CIRCUIT_FAILURES: '1',
  });
}, 60_000);

afterAll(async () => {
  await back?.stop();
  await app?.destroy();
});

it('keeps the attempts of a delivery whose probes fail, and delivers it once the endpoint is back', async () => {
  const gone = await new CallbackReceiver().start();
  const url = gone.url('/p');
  await gone.stop(); // every connection refused
  const { partner, secrets } = await servicesOf(app.runtime).partners.create({ name: 'down', callback_url: url });
  const event = leadEvent(partner.id);
  await publishLeadEvents(app.runtime, [event]);
  const deliveries = app.runtime.mongo.collections.deliveries;
  // Its first attempt fails and opens the circuit; then it is the only delivery there is to probe
  // with, a probe a second, for longer than its five attempts would last.
  await new Promise((r) => setTimeout(r, 9000));
  const held = await deliveries.findOne({ partner_id: partner.id });
  expect(held).toMatchObject({ state: 'queued', attempts_made: 1 });

  back = await new CallbackReceiver().start(Number(new URL(url).port));
  back.route('/p', secrets.callback_secret);
  await back.waitFor('/p', 1, 15_000);
  let record = await deliveries.findOne({ partner_id: partner.id });
  for (let i = 0; i < 40 && record?.state !== 'delivered'; i++) {
    await new Promise((r) => setTimeout(r, 250));
    record = await deliveries.findOne({ partner_id: partner.id });
  }
  expect(record).toMatchObject({ state: 'delivered', attempts_made: 2 });
}, 60_000);

import { CallbackReceiver, failFirst } from '../support/callback-receiver';
import { deliveryRecord, publishLeadEvents } from '../support/lead-events';
import { scenarioPartners } from '../support/scenario-partners';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// A retry due later than the hold window (the fetch wait, 1 s in tests, and 3 s more) pauses its tier
// partition, which the lead owner's consumer reads beside leads.events: the partition is resumed a
// hold window before the due time, so the task is in hand early and its attempt goes on time, never
// before; and lead events meanwhile flow as usual.
const DELAY_S = 8;
let app: TestApp;
let receiver: CallbackReceiver;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'dispatcher', CALLBACK_RETRY_DELAYS_S: `${DELAY_S},1,1,1` });
  receiver = await new CallbackReceiver().start();
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

it('attempts a retry due past the hold window on time, and other leads go meanwhile', async () => {
  const events = await scenarioPartners(app.runtime, receiver, { later: failFirst(1), beside: failFirst(0) });
  await publishLeadEvents(app.runtime, [events.later!]);
  const queued = await until(
    async () => {
      const r = await deliveryRecord(app.runtime, events.later!);
      return r?.state === 'queued' && r.attempts_made === 1 ? r : null;
    },
    10_000,
    'the first attempt refused',
  );
  const dueAt = queued.next_attempt_at!.getTime();
  expect(dueAt - Date.now()).toBeGreaterThan(4000); // past the hold window: its partition pauses

  await publishLeadEvents(app.runtime, [events.beside!]);
  await receiver.waitFor('/beside', 1, 3000);

  await until(
    async () => (await deliveryRecord(app.runtime, events.later!))?.state === 'delivered',
    DELAY_S * 1000 + 10_000,
    'the retry',
  );
  const [, retry] = receiver.at('/later');
  expect(retry!.at).toBeGreaterThanOrEqual(dueAt);
  expect(retry!.at - dueAt).toBeLessThan(1000);
}, 40_000);

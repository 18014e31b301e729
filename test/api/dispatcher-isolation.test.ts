import { CallbackReceiver, hangFirst } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { startTestApp, type TestApp } from '../support/test-app';
import { servicesOf } from '../support/manager-services';

// A partner that hangs holds its own slots only: another partner's callbacks go out at once.
let app: TestApp;
let receiver: CallbackReceiver;
let slow: string;
let fast: string;

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'dispatcher',
    CALLBACK_TIMEOUT_MS: '8000',
    CALLBACK_CONCURRENCY: '16',
    CALLBACK_PER_PARTNER_CONCURRENCY: '4',
  });
  receiver = await new CallbackReceiver().start();
  for (const name of ['slow', 'fast']) {
    const { partner, secrets } = await servicesOf(app.runtime).partners.create({
      name,
      callback_url: receiver.url(`/${name}`),
    });
    receiver.route(`/${name}`, secrets.callback_secret, name === 'slow' ? hangFirst(Infinity) : undefined);
    if (name === 'slow') slow = partner.id;
    else fast = partner.id;
  }
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

it('does not let a hanging partner delay another partner', async () => {
  // The slow partner's events come first, on the same partitions, and outnumber every cap.
  await publishLeadEvents(
    app.runtime,
    Array.from({ length: 40 }, () => leadEvent(slow)),
  );
  await receiver.waitFor('/slow', 4);
  const sent = Date.now();
  await publishLeadEvents(
    app.runtime,
    Array.from({ length: 20 }, () => leadEvent(fast)),
  );
  const got = await receiver.waitFor('/fast', 20, 5000);
  const latest = Math.max(...got.map((r) => r.at)) - sent;
  expect(latest).toBeLessThan(2000);
  // Meanwhile the slow partner is held to its own cap.
  expect(receiver.at('/slow')).toHaveLength(4);
});

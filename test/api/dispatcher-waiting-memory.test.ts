import type { ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CallbackReceiver } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { servicesOf } from '../support/manager-services';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

// A partner that answers nothing for now, with a backlog beyond its queue: the backlog waits on the
// first retry tier, and once due, each task waits in memory for room in the partner's queue. What a
// waiting task keeps is its id and due time, not its event nor its record (read again at its turn),
// nor the Kafka message it came in: the memory a backlog takes does not grow with its events' size.
const EVENTS = 600;
const BIG = 'x'.repeat(16 * 1024); // a large field in every event
let app: TestApp;
let receiver: CallbackReceiver;
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'dispatcher',
    CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
    CALLBACK_TIMEOUT_MS: '60000',
    CALLBACK_PER_PARTNER_CONCURRENCY: '1',
    CALLBACK_MAX_QUEUED_PER_PARTNER: '1',
  });
  receiver = await new CallbackReceiver().start();
}, 60_000);

afterAll(async () => {
  for (const res of hanging) res.end('ok');
  await receiver?.stop();
  await app?.destroy();
});

const heapMb = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 1048576;
};

it('keeps a due retry task waiting for room small, whatever the size of its event', async () => {
  const { partner, secrets } = await servicesOf(app.runtime).partners.create({
    name: 'hanging',
    callback_url: receiver.url('/h'),
  });
  receiver.route('/h', secrets.callback_secret, (_req, res) => void hanging.push(res));
  const events = Array.from({ length: EVENTS }, () => leadEvent(partner.id, { external_lead_id: `${BIG}` }));
  const before = heapMb();
  for (let i = 0; i < EVENTS; i += 50) await publishLeadEvents(app.runtime, events.slice(i, i + 50));
  const deliveries = app.runtime.mongo.collections.deliveries;
  // All recorded but the one under way and the one queued, whose records follow their attempts.
  const waiting = EVENTS - 2;
  await until(
    async () => (await deliveries.countDocuments({ partner_id: partner.id })) === waiting,
    30_000,
    'recorded',
  );
  await new Promise((r) => setTimeout(r, 3000)); // every task due (1 s), read, and waiting for room
  const perTaskKb = ((heapMb() - before) * 1024) / waiting;
  expect(hanging.length).toBe(1);
  // Each event is 16 KB: a task that kept its event, its record or its message would keep 16 KB or more
  // (30 KB each when they did).
  expect(perTaskKb).toBeLessThan(8);
}, 60_000);

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

// A partner that answers nothing for now, with a backlog beyond its queue: the backlog waits in
// Kafka, its events set aside with no record each, and the dispatcher keeps none of them (nor their
// Kafka messages) while the endpoint has no room: the memory a backlog takes does not grow with its
// events' number or size.
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

it("keeps nothing of a backlog waiting for room, whatever its events' number and size", async () => {
  const { partner, secrets } = await servicesOf(app.runtime).partners.create({
    name: 'hanging',
    callback_url: receiver.url('/h'),
  });
  receiver.route('/h', secrets.callback_secret, (_req, res) => void hanging.push(res));
  const events = Array.from({ length: EVENTS }, () => leadEvent(partner.id, { external_lead_id: `${BIG}` }));
  const before = heapMb();
  for (let i = 0; i < EVENTS; i += 50) await publishLeadEvents(app.runtime, events.slice(i, i + 50));
  const { deliveries, deliveryBacklogs } = app.runtime.mongo.collections;
  await until(async () => (await deliveryBacklogs.countDocuments({ endpoint: partner.id })) > 0, 30_000, 'a backlog');
  await new Promise((r) => setTimeout(r, 3000)); // every event set aside, the backlog waiting for room
  const waiting = EVENTS - 2; // one under way, one queued
  const perEventKb = ((heapMb() - before) * 1024) / waiting;
  expect(hanging.length).toBe(1);
  // Not a record each: the one under way and the one queued write theirs after their attempts; a few
  // taken by batches of other partitions at the same moment found the queue full and wait on the
  // retry tier, recorded.
  expect(await deliveries.countDocuments({ partner_id: partner.id })).toBeLessThan(EVENTS / 20);
  // Each event is 16 KB: a backlog that kept its events, their records or their messages would keep
  // 16 KB or more each.
  expect(perEventKb).toBeLessThan(8);
}, 60_000);

import type { LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { servicesOf } from '../support/manager-services';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// A partner whose receiver refuses connections, with a backlog of its events on the same partitions
// as another partner's: the other partner's callbacks still leave within seconds of their events,
// and the dead endpoint's deliveries cost the store little while it stays down: once its circuit is
// open they are set aside in its backlog, a document a partition, not a record each.
let app: TestApp;
let receiver: CallbackReceiver;
let back: CallbackReceiver | undefined;
let refusing: string;
let dead: string;
let deadSecret: string;
let healthy: string;
// Two events a lead (accepted, then a status change), as an agent's assignment makes them; the
// partner is named once it exists.
function twoEvents(): LeadEvent[] {
  const first = leadEvent('a');
  return [
    first,
    leadEvent('a', {
      lead_id: first.lead_id,
      event_id: `${first.lead_id}:1`,
      event: 'lead.status_changed',
      our_status: 'in_progress',
    }),
  ];
}
const backlog = Array.from({ length: 300 }, () => twoEvents()).flat();
let openers: LeadEvent[] = [];
const all = (): LeadEvent[] => [...openers, ...backlog];

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'dispatcher',
    CALLBACK_RETRY_DELAYS_S: '1,2,3,4',
    CALLBACK_TIMEOUT_MS: '5000', // a loaded machine answers late, never lost
    ENDPOINT_CIRCUIT_FAILURES: '5',
  });
  const gone = await new CallbackReceiver().start();
  refusing = gone.url('/a');
  await gone.stop(); // nothing listens there any more: every connection is refused
  receiver = await new CallbackReceiver().start();
  const partners = servicesOf(app.runtime).partners;
  const a = await partners.create({ name: 'dead endpoint', callback_url: refusing });
  const b = await partners.create({ name: 'healthy endpoint', callback_url: receiver.url('/b') });
  receiver.route('/b', b.secrets.callback_secret);
  dead = a.partner.id;
  deadSecret = a.secrets.callback_secret;
  healthy = b.partner.id;
}, 60_000);

afterAll(async () => {
  await receiver?.stop();
  await back?.stop();
  await app?.destroy();
});

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const found = (await app.runtime.metrics.getMetricsAsJSON()).find((m) => m.name === name);
  return (found?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

const deliveryFinds = () => metric('lead_intake_mongo_commands_total', { command: 'find', collection: 'deliveries' });

it("keeps another partner's callbacks flowing while one partner's endpoint is dead with a backlog", async () => {
  // Its first events open its circuit; the backlog comes after.
  openers = Array.from({ length: 5 }, () => twoEvents()).flat();
  await publishLeadEvents(
    app.runtime,
    openers.map((e) => ({ ...e, partner_id: dead })),
  );
  await until(async () => (await metric('lead_intake_callback_endpoint_circuits', {})) === 1, 20_000, 'circuit open');
  await publishLeadEvents(
    app.runtime,
    backlog.map((e) => ({ ...e, partner_id: dead })),
  );
  await new Promise((r) => setTimeout(r, 3000)); // the backlog is under way and set aside

  const sent = Date.now();
  const trickle = Array.from({ length: 5 }, () => leadEvent(healthy));
  await publishLeadEvents(app.runtime, trickle);
  const got = await receiver.waitFor('/b', 5, 15_000);
  expect(Math.max(...got.map((r) => r.at)) - sent).toBeLessThan(3000);

  // While it stays down, reads of delivery records stay few: nothing waits for a record in a loop.
  const before = await deliveryFinds();
  await new Promise((r) => setTimeout(r, 5000));
  const perSecond = ((await deliveryFinds()) - before) / 5;
  expect(perSecond).toBeLessThan(20);
  // Its circuit is open (or probing): the backlog is set aside, not attempted, and not recorded
  // event by event: only those attempted before the circuit opened (and its probes) have records.
  const notClosed = await metric('lead_intake_callback_endpoint_circuits', {});
  expect(notClosed).toBe(1);
  const { deliveries, deliveryBacklogs } = app.runtime.mongo.collections;
  expect(await deliveries.countDocuments({ partner_id: dead })).toBeLessThan(backlog.length / 2);
  expect(await deliveryBacklogs.countDocuments({ endpoint: dead })).toBeGreaterThan(0);
}, 90_000);

it('sends the held backlog once the endpoint is back, at its pace, each lead in event order, each event once', async () => {
  back = await new CallbackReceiver().start(Number(new URL(refusing).port));
  back.route('/a', deadSecret);
  const backAt = Date.now();
  const got = await back.waitFor('/a', all().length, 60_000);
  // As fast as the endpoint takes them (a probe's wait, then the partner's slots), not at a set rate
  // of held leads a second (300 leads here).
  expect(Math.max(...got.map((r) => r.at)) - backAt).toBeLessThan(15_000);
  await new Promise((r) => setTimeout(r, 1000)); // nothing more comes
  const ids = back.at('/a').map((r) => r.headers['x-event-id'] as string);
  expect(new Set(ids).size).toBe(all().length);
  expect(ids).toHaveLength(all().length);
  for (const e of all().filter((e) => e.event_id.endsWith(':1')))
    expect(ids.indexOf(e.event_id)).toBeGreaterThan(ids.indexOf(`${e.lead_id}:0`));
  expect(got.every((r) => r.signatureValid)).toBe(true);
  expect(await metric('lead_intake_callback_endpoint_circuits', {})).toBe(0);
  // Every delivery recorded (a record is written after its answer, outside the partner's slot, so on a
  // busy store it may trail the last answer), and nothing owed any more: the backlog's documents are gone.
  const { deliveries, deliveryBacklogs } = app.runtime.mongo.collections;
  const delivered = () => deliveries.countDocuments({ partner_id: dead, state: 'delivered' });
  await until(async () => (await delivered()) === all().length, 15_000, 'every delivery recorded');
  await until(async () => (await deliveryBacklogs.countDocuments({ endpoint: dead })) === 0, 10_000, 'backlog removed');
}, 90_000);

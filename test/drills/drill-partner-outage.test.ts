import type { LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { servicesOf } from '../support/manager-services';
import { startTestApp, type TestApp } from '../support/test-app';

// Fault drill: partner A sends a steady load (10 leads a second, two events each) to a receiver that
// slows down, then refuses connections for 30 s, then comes back; partner B sends a trickle to a
// healthy receiver all along. B's callbacks each leave within a few seconds of their event whatever A's
// endpoint does; while A's is down the store's commands a second and the process's memory stay
// bounded; once it is back A's backlog goes out, each lead in event order, no event lost.
const A_LEADS_PER_TICK = 2; // every 200 ms
const B_EVERY_TICKS = 3; // a lead of B's every 600 ms
const B_WITHIN_MS = 3000;
let app: TestApp;
let a: CallbackReceiver;
let aBefore: CallbackReceiver; // A's receiver until it went down
let b: CallbackReceiver;
let aUrl: string;
let aSecret: string;
let aId: string;
let bId: string;
const aEvents: LeadEvent[] = [];
const bSent = new Map<string, number>(); // B's event id -> when it was published

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'dispatcher',
    CALLBACK_RETRY_DELAYS_S: '1,2,3,4',
    CALLBACK_TIMEOUT_MS: '3000',
    ENDPOINT_CIRCUIT_FAILURES: '5',
  });
  a = await new CallbackReceiver().start();
  b = await new CallbackReceiver().start();
  aUrl = a.url('/a');
  const partners = servicesOf(app.runtime).partners;
  const pa = await partners.create({ name: 'A: slow, then down', callback_url: aUrl });
  const pb = await partners.create({ name: 'B: healthy', callback_url: b.url('/b') });
  aId = pa.partner.id;
  aSecret = pa.secrets.callback_secret;
  bId = pb.partner.id;
  a.route('/a', aSecret, (_req, res) => setTimeout(() => res.end('ok'), 400)); // slow, within the timeout
  b.route('/b', pb.secrets.callback_secret);
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await app?.destroy();
});

// Both partners' load, a tick every 200 ms, until stopped.
function startLoad(): () => Promise<void> {
  let tick = 0;
  let last: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    const events: LeadEvent[] = [];
    for (let i = 0; i < A_LEADS_PER_TICK; i++) {
      const first = leadEvent(aId);
      const second = leadEvent(aId, {
        lead_id: first.lead_id,
        event_id: `${first.lead_id}:1`,
        event: 'lead.status_changed',
        our_status: 'in_progress',
      });
      events.push(first, second);
      aEvents.push(first, second);
    }
    if (tick++ % B_EVERY_TICKS === 0) events.push(leadEvent(bId));
    last = last.then(() => {
      const at = Date.now();
      for (const e of events) if (e.partner_id === bId) bSent.set(e.event_id, at);
      return publishLeadEvents(app.runtime, events);
    });
  }, 200);
  return async () => {
    clearInterval(timer);
    await last;
  };
}

async function counter(name: string, labels: Record<string, string> = {}): Promise<number> {
  const found = (await app.runtime.metrics.getMetricsAsJSON()).find((m) => m.name === name);
  return (found?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

// Every B event published so far reached B within B_WITHIN_MS of its publishing (waits for the last ones).
async function expectBOnTime(): Promise<void> {
  const deadline = Date.now() + B_WITHIN_MS + 2000;
  while (b.at('/b').length < bSent.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const got = new Map(b.at('/b').map((r) => [r.headers['x-event-id'] as string, r.at]));
  const late = [...bSent].filter(([id, at]) => (got.get(id) ?? Infinity) - at > B_WITHIN_MS);
  expect(late).toEqual([]);
}

it("keeps B's callbacks on time while A's endpoint slows, dies and comes back, then drains A's backlog in order", async () => {
  const stop = startLoad();
  try {
    await new Promise((r) => setTimeout(r, 15_000)); // A slow
    await expectBOnTime();

    aBefore = a;
    await a.stop(); // A refuses connections
    await new Promise((r) => setTimeout(r, 10_000)); // its circuit opens, its backlog builds
    const commandsBefore = await counter('lead_intake_mongo_commands_total');
    const rssBefore = process.memoryUsage().rss;
    const eventsBefore = aEvents.length + bSent.size;
    await new Promise((r) => setTimeout(r, 20_000));
    const commandsPerS = ((await counter('lead_intake_mongo_commands_total')) - commandsBefore) / 20;
    const eventsPerS = (aEvents.length + bSent.size - eventsBefore) / 20;
    expect(await counter('lead_intake_callback_endpoint_circuits')).toBe(1);
    // Proportional to the events coming in (a record, a lead block, a look-up each), not to the backlog.
    expect(commandsPerS).toBeLessThan(4 * eventsPerS);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
    await expectBOnTime();

    a = await new CallbackReceiver().start(Number(new URL(aUrl).port)); // back, answering at once
    a.route('/a', aSecret);
    await new Promise((r) => setTimeout(r, 10_000));
  } finally {
    await stop();
  }
  await expectBOnTime();

  // A's backlog: every event delivered, each lead's in event order.
  await a.waitFor('/a', 1, 10_000);
  // Two minutes: CI runs two drills side by side on two cores, where the drain is slower.
  const deadline = Date.now() + 120_000;
  const deliveries = app.runtime.mongo.collections.deliveries;
  const delivered = () => deliveries.countDocuments({ partner_id: aId, state: 'delivered' });
  while ((await delivered()) < aEvents.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
  // What is not delivered, by state and attempts, so a failure says whether it was lost, given up or late.
  const undelivered = await deliveries
    .find({ partner_id: aId, state: { $ne: 'delivered' } }, { projection: { _id: 0, state: 1, attempts_made: 1 } })
    .toArray();
  expect({ delivered: await delivered(), undelivered }).toEqual({ delivered: aEvents.length, undelivered: [] });
  const order = new Map<string, number>();
  const received = [...aBefore.at('/a'), ...a.at('/a')];
  received.forEach((r, i) => {
    const id = r.headers['x-event-id'] as string;
    if (!order.has(id)) order.set(id, i);
  });
  for (const e of aEvents.filter((e) => e.event_id.endsWith(':1')))
    expect(order.get(e.event_id)).toBeGreaterThan(order.get(`${e.lead_id}:0`) as number);
  expect(await counter('lead_intake_callback_endpoint_circuits')).toBe(0);
}, 240_000);

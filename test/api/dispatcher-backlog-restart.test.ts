import type { LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { servicesOf } from '../support/manager-services';
import { testConfig } from '../support/test-config';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// A dead endpoint's backlog outlives its dispatcher: the events it set aside are committed on
// leads.events with no record each, so what is owed is the backlog's document; the next dispatcher
// reads it back when the partitions are assigned and sends everything once the endpoint is back,
// each lead in event order, each event once.
const config = testConfig({
  ROLE: 'dispatcher',
  CALLBACK_RETRY_DELAYS_S: '1,2,3,4',
  CALLBACK_TIMEOUT_MS: '5000',
  ENDPOINT_CIRCUIT_FAILURES: '3',
});
let first: TestApp | null = null;
let second: TestApp | null = null;
let back: CallbackReceiver | undefined;

afterAll(async () => {
  await first?.stop();
  await back?.stop();
  await second?.destroy();
});

async function circuitsOpen(app: TestApp): Promise<number> {
  const found = (await app.runtime.metrics.getMetricsAsJSON()).find(
    (m) => m.name === 'lead_intake_callback_endpoint_circuits',
  );
  return (found?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

function twoEvents(partnerId: string): LeadEvent[] {
  const first = leadEvent(partnerId);
  const second = leadEvent(partnerId, {
    lead_id: first.lead_id,
    event_id: `${first.lead_id}:1`,
    event: 'lead.status_changed',
    our_status: 'in_progress',
  });
  return [first, second];
}

it('sends a backlog set aside before a restart once the endpoint is back, each lead in order, each event once', async () => {
  first = await startTestApp({}, config);
  const gone = await new CallbackReceiver().start();
  const url = gone.url('/a');
  await gone.stop(); // every connection refused
  const created = await servicesOf(first.runtime).partners.create({ name: 'dead endpoint', callback_url: url });
  const partnerId = created.partner.id;
  // Its first events open its circuit (3 failures); the rest come after.
  const openers = Array.from({ length: 3 }, () => twoEvents(partnerId)).flat();
  await publishLeadEvents(first.runtime, openers);
  await until(async () => (await circuitsOpen(first!)) === 1, 20_000, 'circuit open');
  const backlog = Array.from({ length: 100 }, () => twoEvents(partnerId)).flat();
  await publishLeadEvents(first.runtime, backlog);
  const events = [...openers, ...backlog];
  const { deliveries, deliveryBacklogs } = first.runtime.mongo.collections;
  await until(async () => (await deliveryBacklogs.countDocuments({ endpoint: partnerId })) > 0, 20_000, 'a backlog');
  await new Promise((r) => setTimeout(r, 2000)); // the rest set aside and committed
  expect(await deliveries.countDocuments({ partner_id: partnerId })).toBeLessThan(events.length / 2);
  await first.stop();
  first = null;

  second = await startTestApp({}, config);
  back = await new CallbackReceiver().start(Number(new URL(url).port));
  back.route('/a', created.secrets.callback_secret);
  await back.waitFor('/a', events.length, 60_000);
  await new Promise((r) => setTimeout(r, 1000)); // nothing more comes
  const ids = back.at('/a').map((r) => r.headers['x-event-id'] as string);
  expect(new Set(ids).size).toBe(events.length);
  expect(ids).toHaveLength(events.length);
  for (const e of events.filter((e) => e.event_id.endsWith(':1')))
    expect(ids.indexOf(e.event_id)).toBeGreaterThan(ids.indexOf(`${e.lead_id}:0`));
  const { deliveryBacklogs: after } = second.runtime.mongo.collections;
  await until(async () => (await after.countDocuments({ endpoint: partnerId })) === 0, 10_000, 'backlog removed');
}, 120_000);

import { deliveryId } from '../../src/shared/ids';
import type { DeliveryTask } from '../../src/shared/schemas';
import { CallbackReceiver } from '../support/callback-receiver';
import { deliveryRecord, leadEvent, publishLeadEvents } from '../support/lead-events';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe, until } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// A partner slower than its events: one attempt at a time (CALLBACK_PER_PARTNER_CONCURRENCY=1) and
// at most 2 waiting in memory (CALLBACK_MAX_QUEUED_PER_PARTNER=2). The rest wait in the endpoint's
// backlog without an attempt and are read back as its queue has room; a lead's delivery whose turn
// comes while the queue is full waits on the first retry tier ("queue_full"), once, and then in memory
// for room. Bounded memory, nothing lost, nothing sent twice, lead order kept, no failed attempt.
let app: TestApp;
let receiver: CallbackReceiver;
let retries: TopicProbe<DeliveryTask>;
let partner: string;

beforeAll(async () => {
  app = await startTestApp({
    ROLE: 'dispatcher',
    CALLBACK_RETRY_DELAYS_S: '1,1,1,1',
    CALLBACK_PER_PARTNER_CONCURRENCY: '1',
    CALLBACK_MAX_QUEUED_PER_PARTNER: '2',
  });
  receiver = await new CallbackReceiver().start();
  const created = await servicesOf(app.runtime).partners.create({ name: 'slow', callback_url: receiver.url('/slow') });
  partner = created.partner.id;
  receiver.route('/slow', created.secrets.callback_secret, (_req, res) => {
    setTimeout(() => res.end('ok'), 150);
  });
  retries = await new TopicProbe<DeliveryTask>(app.runtime, 'retry1').start();
});

afterAll(async () => {
  await retries?.stop();
  await receiver?.stop();
  await app?.destroy();
});

it('sets what does not fit aside without an attempt, then delivers every event once, in lead order', async () => {
  const accepted = Array.from({ length: 8 }, () => leadEvent(partner));
  const contacted = accepted.map((a) =>
    leadEvent(partner, {
      lead_id: a.lead_id,
      event_id: `${a.lead_id}:1`,
      event: 'lead.status_changed',
      our_status: 'contacted',
      from_status: 'new',
    }),
  );
  const all = [...accepted, ...contacted];
  await publishLeadEvents(app.runtime, all);

  await receiver.waitFor('/slow', all.length, 30_000);
  for (const e of all)
    await until(
      async () => (await deliveryRecord(app.runtime, e))?.state === 'delivered',
      10_000,
      `${e.event_id} delivered`,
    );

  // Each delivered at its first attempt: none failed, none was attempted and refused for a full queue.
  for (const e of all) expect(await deliveryRecord(app.runtime, e)).toMatchObject({ attempts_made: 1 });
  // Any that waited on the retry tier did so marked as a full queue, once: once due, each waits for
  // room in the partner's queue and is never put back on the tier again.
  const parked = retries.values().filter((t) => t.last_error === 'queue_full' && t.event.partner_id === partner);
  expect(new Set(parked.map((t) => t.delivery_id)).size).toBe(parked.length);
  for (const task of parked) {
    const record = (await app.runtime.mongo.collections.deliveries.findOne({ _id: task.delivery_id }))!;
    expect(record).toMatchObject({ state: 'delivered', attempts_made: 1 });
    expect(record.attempts.map((a) => a.http_status)).toEqual([200]);
  }
  // Each event reached the partner exactly once, and the lead's status callback came after its acceptance.
  const got = receiver.at('/slow').map((r) => `${String(r.body.internal_id)}/${String(r.body.event)}`);
  expect(got.length).toBe(all.length);
  expect(new Set(got).size).toBe(all.length);
  for (const a of accepted)
    expect(got.indexOf(`${a.lead_id}/lead.status_changed`)).toBeGreaterThan(got.indexOf(`${a.lead_id}/lead.accepted`));
  expect(parked.every((t) => t.delivery_id === deliveryId(t.event.event_id, partner))).toBe(true);
  // The backlog caught up: nothing is owed any more.
  const { deliveryBacklogs } = app.runtime.mongo.collections;
  await until(async () => (await deliveryBacklogs.countDocuments({ endpoint: partner })) === 0, 10_000, 'no backlog');
});

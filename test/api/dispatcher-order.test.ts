import { BlockStore } from '../../src/dispatcher/lead-owner/block-store';
import { taskHeaders } from '../../src/dispatcher/delivery-task';
import type { BlockState } from '../../src/dispatcher/lead-owner/lead-lines';
import { CallbackReceiver, type Responder } from '../support/callback-receiver';
import { deliveryRecord, leadEvent, publishLeadEvents } from '../support/lead-events';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe, until } from '../support/topic-probe';
import type { DeliveryCommand, DeliveryTask, LeadEvent } from '../../src/shared/schemas';
import { servicesOf } from '../support/manager-services';

// one lead's callbacks reach a partner in event order. While an earlier event of
// a lead is being retried, its later events wait; other leads and other partners do not.
let app: TestApp;
let receiver: CallbackReceiver;
let partner: string;
let other: string;
let events: TopicProbe<LeadEvent>;
let retries: TopicProbe<DeliveryTask>;
let commands: TopicProbe<DeliveryCommand>;

// Fails the first attempt of each lead's lead.accepted with 503, answers everything else at once.
const failFirstAccepted = (): Responder => {
  const failed = new Set<string>();
  return (_req, res, nth) => {
    const got = receiver.at('/ordered')[nth - 1]!;
    const lead = String(got.body.internal_id);
    if (got.body.event === 'lead.accepted' && !failed.has(lead)) {
      failed.add(lead);
      res.writeHead(503).end('later');
      return;
    }
    res.end('ok');
  };
};

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'dispatcher', CALLBACK_RETRY_DELAYS_S: '1,1,1,1' });
  receiver = await new CallbackReceiver().start();
  const a = await servicesOf(app.runtime).partners.create({ name: 'ordered', callback_url: receiver.url('/ordered') });
  const b = await servicesOf(app.runtime).partners.create({ name: 'other', callback_url: receiver.url('/other') });
  partner = a.partner.id;
  other = b.partner.id;
  receiver.route('/ordered', a.secrets.callback_secret, failFirstAccepted());
  receiver.route('/other', b.secrets.callback_secret);
  events = await new TopicProbe<LeadEvent>(app.runtime, 'leadEvents').start();
  retries = await new TopicProbe<DeliveryTask>(app.runtime, 'retry1').start();
  commands = await new TopicProbe<DeliveryCommand>(app.runtime, 'callbackCommands').start();
});

afterAll(async () => {
  await Promise.all([events, retries, commands].map((p) => p?.stop()));
  await receiver?.stop();
  await app?.destroy();
});

it('sends lead.status_changed only after the retried lead.accepted, and keeps other leads and partners flowing', async () => {
  const lead = 'le-9001';
  const accepted = leadEvent(partner, { lead_id: lead, event_id: `${lead}:0` });
  const contacted = leadEvent(partner, {
    lead_id: lead,
    event_id: `${lead}:1`,
    event: 'lead.status_changed',
    our_status: 'contacted',
    from_status: 'new',
  });
  const ftd = leadEvent(partner, {
    lead_id: lead,
    event_id: `${lead}:2`,
    event: 'lead.ftd',
    our_status: 'ftd',
    is_depositor: true,
  });
  const otherLead = leadEvent(partner, {
    lead_id: 'le-9002',
    event_id: 'le-9002:1',
    event: 'lead.status_changed',
    our_status: 'contacted',
  });
  const otherPartner = leadEvent(other, {
    lead_id: lead,
    event_id: `${lead}:1`,
    event: 'lead.status_changed',
    our_status: 'contacted',
  });
  await publishLeadEvents(app.runtime, [accepted, contacted, ftd, otherLead, otherPartner]);

  // Other leads and partners go at once, while the lead waits out its retry delay (1 s).
  await receiver.waitFor('/other', 1, 5000);
  await until(
    async () => receiver.at('/ordered').some((r) => r.body.internal_id === 'le-9002'),
    5000,
    'the other lead',
  );
  const held = await until(
    async () => {
      const r = await deliveryRecord(app.runtime, contacted);
      return r?.held_by ? r : null;
    },
    5000,
    'the later event to be held',
  );
  expect(held).toMatchObject({ state: 'queued', attempts_made: 0, attempts: [] });

  await until(async () => (await deliveryRecord(app.runtime, ftd))?.state === 'delivered', 15000, 'the last event');
  const mine = receiver
    .at('/ordered')
    .filter((r) => r.body.internal_id === lead)
    .map((r) => r.body.event);
  expect(mine).toEqual(['lead.accepted', 'lead.accepted', 'lead.status_changed', 'lead.ftd']);
  // The other partner and the other lead did not wait for the held lead's retry. Compared by order of
  // arrival, not by a wall-clock bound, which a loaded machine can stretch past the retry delay.
  const retried = receiver.at('/ordered').filter((r) => r.body.internal_id === lead)[1]!.at;
  expect(receiver.at('/other')[0]!.at).toBeLessThan(retried);
  expect(receiver.at('/ordered').find((r) => r.body.internal_id === 'le-9002')!.at).toBeLessThan(retried);
  const acceptedRecord = (await deliveryRecord(app.runtime, accepted))!;
  expect(acceptedRecord.attempts.map((a) => a.http_status)).toEqual([503, 200]);
  const contactedRecord = (await deliveryRecord(app.runtime, contacted))!;
  expect(contactedRecord).toMatchObject({ state: 'delivered', attempts_made: 1 });
  expect(contactedRecord.held_by).toBeUndefined();
  // The status callback went out only after the retried lead.accepted was answered.
  expect(contactedRecord.attempts[0]!.at.getTime()).toBeGreaterThanOrEqual(acceptedRecord.attempts[1]!.at.getTime());
  await until(
    async () => (await app.runtime.mongo.collections.deliveryBlocks.countDocuments({})) === 0,
    5000,
    'the block to be removed',
  );
  // The retry is the lead owner's own input: its task is keyed by lead id, on the lead's partition
  // number, so the owner that holds the lead's line reads it, and the line learns the end at once:
  // nothing goes back to it over callbacks.commands.
  const task = retries.seen.find((t) => t.value.delivery_id === acceptedRecord._id)!;
  const published = events.seen.find((e) => e.value.event_id === accepted.event_id)!;
  expect(task).toMatchObject({ key: lead, partition: published.partition });
  expect(commands.seen.filter((c) => c.value.lead_id === lead)).toEqual([]);
});

// A held delivery's event is committed once it is recorded as held: after a crash only its lead's
// saved block brings it back. So no block may be saved that leaves out a delivery still recorded as
// held (queued, held_by set), or a kill -9 right after that save strands it for good. Checked at
// every save of the lead's block, against the records as they stand in the store at that moment.
it('never saves a lead block that leaves out a delivery still recorded as held', async () => {
  const lead = 'le-9003';
  const events = [
    leadEvent(partner, { lead_id: lead, event_id: `${lead}:0` }),
    leadEvent(partner, {
      lead_id: lead,
      event_id: `${lead}:1`,
      event: 'lead.status_changed',
      our_status: 'contacted',
      from_status: 'new',
    }),
    leadEvent(partner, {
      lead_id: lead,
      event_id: `${lead}:2`,
      event: 'lead.ftd',
      our_status: 'ftd',
      is_depositor: true,
    }),
  ];
  const stranded: { block: BlockState | null; left_out: string }[] = [];
  let saves = 0;
  const save = BlockStore.prototype.save;
  const spy = jest.spyOn(BlockStore.prototype, 'save').mockImplementation(async function (
    this: BlockStore,
    key,
    partition,
    block,
    epoch,
  ) {
    if (key.leadId === lead) {
      saves++;
      for (const doc of await Promise.all(events.map((e) => deliveryRecord(app.runtime, e)))) {
        const listed = block !== null && (block.blocker === doc?._id || block.held.includes(doc?._id ?? ''));
        if (doc?.state === 'queued' && doc.held_by !== undefined && !listed)
          stranded.push({ block, left_out: doc._id });
      }
    }
    return save.call(this, key, partition, block, epoch);
  });
  try {
    await publishLeadEvents(app.runtime, events);
    await until(
      async () => (await deliveryRecord(app.runtime, events[2]!))?.state === 'delivered',
      15000,
      'the last event',
    );
    await until(
      async () => (await app.runtime.mongo.collections.deliveryBlocks.countDocuments({ lead_id: lead })) === 0,
      5000,
      'the block to be removed',
    );
  } finally {
    spy.mockRestore();
  }
  expect(saves).toBeGreaterThanOrEqual(3); // blocked, then two held deliveries in turn
  expect(stranded).toEqual([]);
});

// An owner that lost its partitions without knowing may record a delivery first (a first record is
// inserted once: the first writer wins). The new owner, whose own attempt failed, holds the lead's
// later events behind it and publishes its retry task; when that task finds the record ended by the
// other owner, it still releases the lead, or the later events would wait for ever.
it("releases the lead when its blocker's retry task finds the record ended by another owner", async () => {
  const lead = 'le-9004';
  const accepted = leadEvent(partner, { lead_id: lead, event_id: `${lead}:0` });
  const contacted = leadEvent(partner, {
    lead_id: lead,
    event_id: `${lead}:1`,
    event: 'lead.status_changed',
    our_status: 'contacted',
    from_status: 'new',
  });
  await publishLeadEvents(app.runtime, [accepted, contacted]);
  const queued = await until(
    async () => {
      const r = await deliveryRecord(app.runtime, accepted);
      return r?.state === 'queued' && r.attempts_made === 1 ? r : null;
    },
    5000,
    'the first attempt refused',
  );
  // The other owner's record, delivered, won (its retry task, due in a second, is now stale).
  await app.runtime.mongo.collections.deliveries.updateOne(
    { _id: queued._id },
    { $set: { state: 'delivered', next_attempt_at: null, attempts_left: 0 } },
  );
  await until(
    async () => (await deliveryRecord(app.runtime, contacted))?.state === 'delivered',
    15000,
    'the later event released',
  );
  expect(
    receiver
      .at('/ordered')
      .filter((r) => r.body.internal_id === lead)
      .map((r) => r.body.our_status),
  ).toEqual(['new', 'contacted']);
});

// A task published before the tiers were keyed by lead (keyed by delivery id) may be read by an owner
// that does not hold its lead's line: its end then goes to the lead's owner as a command.
it('reports the end of a task keyed by delivery id to its lead owner by command', async () => {
  const lead = 'le-9005';
  const accepted = leadEvent(partner, { lead_id: lead, event_id: `${lead}:0`, event: 'lead.status_changed' });
  await publishLeadEvents(app.runtime, [accepted]);
  const record = await until(
    async () => {
      const r = await deliveryRecord(app.runtime, accepted);
      return r?.state === 'delivered' ? r : null;
    },
    5000,
    'the delivery',
  );
  const { producer, codec, topics } = app.runtime;
  const task: DeliveryTask = { delivery_id: record._id, event: accepted, last_error: 'http_503' };
  await producer.send({
    topic: topics.retry1,
    messages: [
      {
        key: record._id,
        value: await codec.encode('retry1', task),
        headers: taskHeaders({ dueAt: Date.now(), attempt: 2 }),
      },
    ],
  });
  const [released] = await until(
    async () => {
      const seen = commands.values().filter((c) => c.lead_id === lead);
      return seen.length > 0 ? seen : null;
    },
    10000,
    'the command',
  );
  expect(released).toMatchObject({ kind: 'released', delivery_id: record._id, partner_id: partner });
});

import { createHmac } from 'node:crypto';
import type { DispatcherCommands } from '../../src/dispatcher/commands';
import { deliveryId } from '../../src/shared/ids';
import type { ReplyWaiter } from '../../src/shared/kafka/reply-waiter';
import type { DeliveryDoc } from '../../src/shared/mongo/documents';
import type { CallbackReply, DeliveryTask, LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver, failFirst, status } from '../support/callback-receiver';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { ManagerClient } from '../support/manager-client';
import { managerSide } from '../support/manager-side';
import { POSTBACK_APP, query, TOKEN, trackerPartner } from '../support/postback-tracker';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe, until } from '../support/topic-probe';

// Postbacks through the real machinery: partners set up through the manager API, lead
// events on the real topic, a real HTTP receiver on loopback playing the tracker, the retry tiers
// (1, 2, 3, 4 s here), the dead topic and the delivery records.
const DELAYS_MS = [1000, 2000, 3000, 4000];

let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let dead: TopicProbe<DeliveryTask>;
let replies: ReplyWaiter<CallbackReply>;
let commands: DispatcherCommands;

beforeAll(async () => {
  app = await startTestApp(POSTBACK_APP);
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  dead = await new TopicProbe<DeliveryTask>(app.runtime, 'callbacksDead').start();
  const rt = app.runtime;
  ({ commands, replies } = await managerSide(rt, 'postbacks-test-manager'));
});

afterAll(async () => {
  await replies?.stop();
  await dead?.stop();
  await receiver?.stop();
  await app?.destroy();
});

const tracker = (path: string, postbacks: Record<string, unknown>, extra?: Record<string, unknown>) =>
  trackerPartner(manager, receiver, path, postbacks, extra);

const postbackRecord = (event: LeadEvent) =>
  app.runtime.mongo.collections.deliveries.findOne({ _id: deliveryId(event.event_id, event.partner_id, 'postback') });
const finalRecord = (event: LeadEvent, state: DeliveryDoc['state'], timeoutMs = 30_000) =>
  until(
    async () => {
      const r = await postbackRecord(event);
      return r?.state === state ? r : null;
    },
    timeoutMs,
    `${event.event_id} postback to be ${state}`,
  );

describe('macros', () => {
  it('fills every macro URL-encoded, signs the final URL, records it with the token masked', async () => {
    const template =
      receiver.url('/fill') +
      '?s={status}&our={our_status}&ext={external_id}&id={internal_id}&e={event}&eid={event_id}&dep={is_depositor}' +
      '&sub={sub_id}&cid={click_id}&src={source}&f={funnel}&ts={timestamp}&u={unix_ts}&t={token}';
    const partner = await tracker('/fill', {
      url: template,
      token: TOKEN,
      sign: true,
      status_mapping: { ftd: 'sale' },
    });
    const event = leadEvent(partner, {
      event: 'lead.ftd',
      our_status: 'ftd',
      is_depositor: true,
      external_lead_id: 'ext 1/ä',
      occurred_at: '2026-11-25T10:00:00.000Z',
      tracking: { sub_id: 'a b&c=d', click_id: 'ü?#', source: 'fb', funnel: 'f/1' },
    });
    await publishLeadEvents(app.runtime, [event]);
    const [got] = await receiver.waitFor('/fill', 1);
    expect(got!.method).toBe('GET');
    expect(Object.fromEntries(query(got!))).toEqual({
      s: 'sale',
      our: 'ftd',
      ext: 'ext 1/ä',
      id: event.lead_id,
      e: 'lead.ftd',
      eid: event.event_id,
      dep: '1',
      sub: 'a b&c=d',
      cid: 'ü?#',
      src: 'fb',
      f: 'f/1',
      ts: '2026-11-25T10:00:00.000Z',
      u: String(Date.parse('2026-11-25T10:00:00.000Z') / 1000),
      t: TOKEN,
    });
    // encodeURIComponent: nothing in a value can end it or start another parameter.
    expect(got!.url).toContain('sub=a%20b%26c%3Dd&cid=%C3%BC%3F%23');
    expect(got!.url).toContain(`t=${encodeURIComponent(TOKEN)}`);
    expect(got!.headers).toMatchObject({ 'user-agent': 'Acme-Postback/1.0', 'x-event-id': event.event_id });
    const fullUrl = receiver.url(got!.url);
    expect(got!.headers['x-postback-signature']).toBe(
      `sha256=${createHmac('sha256', TOKEN).update(fullUrl).digest('hex')}`,
    );

    const record = await finalRecord(event, 'delivered');
    expect(record).toMatchObject({ kind: 'postback', attempts_made: 1, last_http_status: 200 });
    expect(record.attempts[0]!.url).toBe(fullUrl.replace(`t=${encodeURIComponent(TOKEN)}`, 't=***'));
    expect(JSON.stringify(record)).not.toContain(encodeURIComponent(TOKEN));
    // The manager sees the kind and the masked URL.
    const view = await manager.get<{ kind: string; attempts: { url: string }[] }>(`/api/deliveries/${record._id}`);
    expect(view.body.kind).toBe('postback');
    expect(view.body.attempts[0]!.url).toContain('t=***');
  });

  it('sends a macro the lead has no value for as empty, and a per-event template with its own mapping', async () => {
    const partner = await tracker(
      '/per-event',
      {
        url: `${receiver.url('/per-event')}?kind=default&s={status}&cid={click_id}`,
        templates: [
          {
            event: 'lead.rejected',
            url: `${receiver.url('/per-event')}?kind=rejected&s={status}`,
            status_mapping: { rejected: 'declined' },
          },
        ],
      },
      { status_mapping: { new: 'lead' } },
    );
    const accepted = leadEvent(partner);
    const rejected = leadEvent(partner, { event: 'lead.rejected', our_status: 'rejected', reason: 'country_blocked' });
    await publishLeadEvents(app.runtime, [accepted, rejected]);
    const got = await receiver.waitFor('/per-event', 2);
    const byKind = Object.fromEntries(got.map((g) => [query(g).get('kind'), Object.fromEntries(query(g))]));
    expect(byKind.default).toEqual({ kind: 'default', s: 'lead', cid: '' });
    expect(byKind.rejected).toEqual({ kind: 'rejected', s: 'declined' });
  });

  it('sends only the whitelisted events, and a callback beside the postback, each in its own line', async () => {
    const partner = await tracker(
      '/both',
      { url: `${receiver.url('/both-pb')}?e={event}`, events: ['lead.ftd'] },
      { callback_url: receiver.url('/both') },
    );
    receiver.route('/both-pb', 'unused', status(500, 'tracker down'));
    const lead = 'le-880001';
    const events = [
      leadEvent(partner, { lead_id: lead, event_id: `${lead}:0` }),
      leadEvent(partner, {
        lead_id: lead,
        event_id: `${lead}:1`,
        event: 'lead.ftd',
        our_status: 'ftd',
        is_depositor: true,
      }),
    ];
    await publishLeadEvents(app.runtime, events);
    // The tracker fails; the lead's callbacks do not wait for its postbacks.
    const callbacks = await receiver.waitFor('/both', 2);
    expect(callbacks.map((c) => c.body.event)).toEqual(['lead.accepted', 'lead.ftd']);
    const postbacks = await receiver.waitFor('/both-pb', 1);
    expect(postbacks.every((p) => query(p).get('e') === 'lead.ftd')).toBe(true);
    expect(await postbackRecord(events[0]!)).toBeNull();
  });
});

describe('delivery', () => {
  it("keeps one lead's postbacks in event order behind a failing one, with the retry delays", async () => {
    const partner = await tracker('/order', { url: `${receiver.url('/order')}?eid={event_id}` });
    receiver.respond('/order', failFirst(2));
    const lead = 'le-880002';
    const events = [0, 1, 2].map((n) =>
      leadEvent(partner, {
        lead_id: lead,
        event_id: `${lead}:${n}`,
        ...(n > 0 && { event: 'lead.status_changed' as const, our_status: n === 1 ? 'contacted' : 'interested' }),
      }),
    );
    await publishLeadEvents(app.runtime, events);
    const got = await receiver.waitFor('/order', 5, 30_000);
    expect(got.map((g) => query(g).get('eid'))).toEqual([
      `${lead}:0`,
      `${lead}:0`,
      `${lead}:0`,
      `${lead}:1`,
      `${lead}:2`,
    ]);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(DELAYS_MS[0]!);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(DELAYS_MS[1]!);
    for (const event of events) await finalRecord(event, 'delivered');
  });

  // A lone surrogate is valid JSON and a URL cannot carry it: filling the template throws. That
  // postback is dead at once with the reason, and the lead's later ones, and the partition, go on.
  it("records a postback that cannot be prepared as dead with its reason, and the lead's next one goes", async () => {
    const partner = await tracker('/hostile', {
      url: `${receiver.url('/hostile')}?eid={event_id}&cid={click_id}`,
    });
    const lead = 'le-880009';
    const hostile = leadEvent(partner, { lead_id: lead, event_id: `${lead}:0`, tracking: { click_id: '\ud800' } });
    const next = leadEvent(partner, {
      lead_id: lead,
      event_id: `${lead}:1`,
      event: 'lead.status_changed',
      our_status: 'contacted',
      tracking: { click_id: 'c-1' },
    });
    await publishLeadEvents(app.runtime, [hostile, next]);
    const [got] = await receiver.waitFor('/hostile', 1, 30_000);
    expect(query(got!).get('eid')).toBe(`${lead}:1`);
    expect(await finalRecord(hostile, 'dead')).toMatchObject({ attempts_made: 1, last_error: 'unpreparable:URIError' });
    await finalRecord(next, 'delivered');
  });

  it('declares a postback dead after the schedule, on the dead topic, and a manager retries it', async () => {
    const partner = await tracker('/dead', { url: `${receiver.url('/dead')}?eid={event_id}` });
    receiver.respond('/dead', status(500, 'boom'));
    const event = leadEvent(partner);
    await publishLeadEvents(app.runtime, [event]);
    const record = await finalRecord(event, 'dead', 40_000);
    expect(record).toMatchObject({ kind: 'postback', attempts_made: 5, last_http_status: 500 });
    const tasks = await dead.waitFor((all) => all.some((t) => t.delivery_id === record._id));
    expect(tasks.find((t) => t.delivery_id === record._id)?.kind).toBe('postback');

    receiver.respond('/dead', status(200, 'ok'));
    expect(await commands.retry(record._id, 'manager@test')).toMatchObject({ outcome: 'requeued' });
    const again = await finalRecord(event, 'delivered');
    expect(again.manual_retries).toHaveLength(1);
  }, 60_000);

  it('gives a 404 one more try only (the 4xx rule), and any 2xx is success whatever the body', async () => {
    const partner = await tracker('/gone', { url: `${receiver.url('/gone')}?eid={event_id}` });
    receiver.respond('/gone', status(404, 'no such campaign'));
    const notFound = leadEvent(partner);
    const ok = await tracker('/odd-body', { url: `${receiver.url('/odd-body')}?eid={event_id}` });
    receiver.respond('/odd-body', status(204, ''));
    const odd = leadEvent(ok);
    await publishLeadEvents(app.runtime, [notFound, odd]);
    expect(await finalRecord(notFound, 'dead', 20_000)).toMatchObject({ attempts_made: 2, last_http_status: 404 });
    expect(await finalRecord(odd, 'delivered')).toMatchObject({ attempts_made: 1, last_http_status: 204 });
  });
  it("re-sends a postback in a replay of the partner's range, with the same event id", async () => {
    const partner = await tracker('/replayed', { url: `${receiver.url('/replayed')}?eid={event_id}` });
    const event = leadEvent(partner);
    await publishLeadEvents(app.runtime, [event]);
    const first = await finalRecord(event, 'delivered');
    const from = new Date(first.created_at.getTime() - 60_000).toISOString();
    const res = await manager.post(`/api/affiliates/${partner}/replay`, {
      from,
      to: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(res.status).toBe(202);
    const got = await receiver.waitFor('/replayed', 2);
    expect(got.map((g) => query(g).get('eid'))).toEqual([event.event_id, event.event_id]);
    await until(
      async () => ((await postbackRecord(event))?.manual_retries.length === 1 ? true : null),
      20_000,
      'the replay recorded',
    );
  });
});

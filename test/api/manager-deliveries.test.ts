import type { DeliveryDoc } from '../../src/shared/mongo/documents';
import type { LeadEvent } from '../../src/shared/schemas';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { deliveryRecord, leadEvent, publishLeadEvents } from '../support/lead-events';
import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The delivery queue through the manager API, with the real dispatcher: a receiver that answers
// 404 makes deliveries dead after one more retry (spec 6.3); a manager retries them by hand.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;

type Page = { items: Record<string, unknown>[]; next_cursor: string | null };

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress,dispatcher', CALLBACK_RETRY_DELAYS_S: '1,1,1,1' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

// A partner whose receiver refuses everything, and its events, all dead once the dispatcher is done.
async function partnerWithDeadDeliveries(
  path: string,
  events: Partial<LeadEvent>[],
): Promise<{ id: string; events: LeadEvent[] }> {
  const res = await manager.post<{ id: string; callback_secret: string }>('/api/affiliates', {
    name: path,
    callback_url: receiver.url(path),
  });
  receiver.route(path, res.body.callback_secret, status(404, 'no such hook'));
  const published = events.map((e) => leadEvent(res.body.id, e));
  await publishLeadEvents(app.runtime, published);
  for (const event of published) await recordIn(event, 'dead');
  return { id: res.body.id, events: published };
}

const recordIn = (event: LeadEvent, state: DeliveryDoc['state']) =>
  until(
    async () => {
      const r = await deliveryRecord(app.runtime, event);
      return r?.state === state ? r : null;
    },
    30000,
    `${event.event_id} to be ${state}`,
  );

describe('delivery queue', () => {
  let partner: { id: string; events: LeadEvent[] };

  beforeAll(async () => {
    partner = await partnerWithDeadDeliveries('/queue', [
      {},
      { event: 'lead.status_changed', our_status: 'contacted', from_status: 'new' },
      {},
    ]);
  });

  it('lists deliveries with state, attempts, last answer and next attempt, without internal fields', async () => {
    const res = await manager.get<Page>(`/api/deliveries?affiliate_id=${partner.id}`);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(3);
    expect(res.body.items[0]).toEqual({
      id: expect.stringMatching(/^dl-/),
      kind: 'callback',
      event: expect.any(String),
      event_id: expect.any(String),
      affiliate_id: partner.id,
      lead_id: expect.stringMatching(/^le-/),
      state: 'dead',
      attempts_made: 2,
      attempts_left: 0,
      next_attempt_at: null,
      last_http_status: 404,
      last_response_body: 'no such hook',
      last_error: null,
      attempts: expect.any(Array),
      manual_retries: [],
      test: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('filters by state, partner and event, and pages newest first with a cursor', async () => {
    const byEvent = await manager.get<Page>(
      `/api/deliveries?affiliate_id=${partner.id}&event=lead.status_changed&state=dead`,
    );
    expect(byEvent.body.items.map((d) => d.event_id)).toEqual([partner.events[1]!.event_id]);
    expect((await manager.get<Page>(`/api/deliveries?affiliate_id=${partner.id}&state=delivered`)).body.items).toEqual(
      [],
    );
    const byState = await manager.get<Page>('/api/deliveries?state=dead&limit=200');
    expect(byState.body.items.filter((d) => d.affiliate_id === partner.id)).toHaveLength(3);
    const first = await manager.get<Page>(`/api/deliveries?affiliate_id=${partner.id}&limit=2`);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await manager.get<Page>(
      `/api/deliveries?affiliate_id=${partner.id}&limit=2&cursor=${encodeURIComponent(first.body.next_cursor!)}`,
    );
    expect(second.body.next_cursor).toBeNull();
    const all = [...first.body.items, ...second.body.items];
    expect(new Set(all.map((d) => d.id)).size).toBe(3);
    const times = all.map((d) => Date.parse(d.created_at as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('filters by the time the record was created: from inclusive, to exclusive', async () => {
    const listed = (await manager.get<Page>(`/api/deliveries?affiliate_id=${partner.id}`)).body.items;
    const times = listed.map((d) => d.created_at as string).sort();
    const url = (q: string) => `/api/deliveries?affiliate_id=${partner.id}&${q}`;
    expect((await manager.get<Page>(url(`from=${times[0]}`))).body.items).toHaveLength(3);
    expect((await manager.get<Page>(url(`to=${times[0]}`))).body.items).toHaveLength(0);
    expect(
      (await manager.get<Page>(url(`from=${new Date(Date.parse(times[2]!) + 1).toISOString()}`))).body.items,
    ).toHaveLength(0);
  });

  it('refuses what is not a cursor with 422', async () => {
    const res = await manager.get(`/api/deliveries?cursor=${Buffer.from('le-1').toString('base64url')}`);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('invalid_request');
  });

  it('refuses unknown filter values with 422', async () => {
    expect((await manager.get('/api/deliveries?state=lost')).status).toBe(422);
    expect((await manager.get('/api/deliveries?event=lead.gone')).status).toBe(422);
    expect((await manager.get('/api/deliveries?colour=red')).status).toBe(422);
  });

  it('shows one delivery, and 404 for an unknown one', async () => {
    const [listed] = (await manager.get<Page>(`/api/deliveries?affiliate_id=${partner.id}&limit=1`)).body.items;
    expect((await manager.get(`/api/deliveries/${listed!.id}`)).body).toEqual(listed);
    expect((await manager.get('/api/deliveries/dl-000000000000000000000000')).status).toBe(404);
  });
});

describe('manual retry', () => {
  it('attempts a dead delivery again, and refuses to retry one that is not dead', async () => {
    const partner = await partnerWithDeadDeliveries('/retry-one', [{}]);
    const event = partner.events[0]!;
    const record = (await deliveryRecord(app.runtime, event))!;
    const before = receiver.at('/retry-one').length;
    receiver.respond('/retry-one', status(200, 'thanks'));

    const res = await manager.post(`/api/deliveries/${record._id}/retry`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: record._id,
      state: 'queued',
      attempts_made: 0,
      manual_retries: [{ at: expect.any(String), by: expect.stringMatching(/^break-glass:[0-9a-f]{6}$/) }],
    });

    await receiver.waitFor('/retry-one', before + 1);
    const delivered = await recordIn(event, 'delivered');
    expect(delivered).toMatchObject({ last_http_status: 200, last_response_body: 'thanks' });
    // The queue's views by state follow the record: out of dead, into delivered.
    const ids = async (state: string) =>
      (await manager.get<Page>(`/api/deliveries?affiliate_id=${partner.id}&state=${state}`)).body.items.map(
        (d) => d.id,
      );
    expect(await ids('dead')).toEqual([]);
    expect(await ids('queued')).toEqual([]);
    expect(await ids('delivered')).toEqual([record._id]);
    expect(await app.runtime.mongo.collections.deliveryList.countDocuments({ ref: record._id })).toBe(4);

    const again = await manager.post(`/api/deliveries/${record._id}/retry`);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('conflict');
    expect((await manager.post('/api/deliveries/dl-000000000000000000000000/retry')).status).toBe(404);
    const audit = await app.runtime.mongo.collections.audit.findOne({ action: 'delivery.retry', target: record._id });
    expect(audit).toMatchObject({ partner_id: partner.id, actor: expect.stringMatching(/^break-glass:[0-9a-f]{6}$/) });
  });

  it("retries all of a partner's dead deliveries at once", async () => {
    const partner = await partnerWithDeadDeliveries('/retry-all', [{}, {}]);
    receiver.respond('/retry-all', status(204));
    const res = await manager.post(`/api/affiliates/${partner.id}/deliveries/retry-dead`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ requeued: 2, pending: 0 });
    for (const event of partner.events) await recordIn(event, 'delivered');
    expect((await manager.post(`/api/affiliates/${partner.id}/deliveries/retry-dead`)).body).toEqual({
      requeued: 0,
      pending: 0,
    });
    expect((await manager.post('/api/affiliates/pa-0000000000000000/deliveries/retry-dead')).status).toBe(404);
  });
});

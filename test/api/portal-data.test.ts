import { randomUUID } from 'node:crypto';
import type { Deposit } from '../../src/shared/schemas';
import { status, type CallbackReceiver } from '../support/callback-receiver';
import { produce } from '../support/intake-commands';
import type { ManagerClient } from '../support/manager-client';
import { deliveriesSettled, sendLead, type FedPartner, type SentLead } from '../support/portal-data';
import { portalSession, type PortalPerson } from '../support/portal-client';
import { ADMIN_NAME, auditEntries, lastHour, startPortalAdminStack, type Page } from '../support/portal-admin-stack';
import { fillPath, operationName, portalOperations, type PortalOperation } from '../support/portal-operations';
import { expectNoPrivateData } from '../support/portal-privacy';
import type { TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// A partner's own data in the portal over the whole pipeline: leads sent through the partner API,
// processed, assigned, a deposit from the CRM, callbacks to a receiver that refuses them (dead) until
// the partner's admin retries them. What the admin sees, does, and what is audited in the manager's
// log with the person's name; a viewer reads everything and may do nothing.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let acme: FedPartner;
let admin: PortalPerson;
let viewer: PortalPerson;
let agentId: string;
const sent: Record<string, SentLead> = {};
// The UTC day the leads were sent on: a run across midnight finds them in the last 7 days, not today.
const utcDayNow = () => new Date().toISOString().slice(0, 10);
let sentDay = '';
const overviewDays = () => (utcDayNow() === sentDay ? 1 : 7);
const AMOUNT = '250.00';

const auditOf = (action: string) => auditEntries(manager, acme.id, action);

beforeAll(async () => {
  sentDay = utcDayNow();
  ({ app, manager, receiver, agentId, acme, admin } = await startPortalAdminStack());
  viewer = await portalSession(app.url, acme.id, 'partner_viewer', admin);

  const send = async (key: string, fields: Record<string, unknown>, expected: string) => {
    sent[key] = await sendLead(app.url, acme, { external_id: key, ...fields });
    expect(sent[key]!.status).toBe(expected);
  };
  await send('gb-search', { source: 'search' }, 'accepted');
  await send('gb-formula', { source: '=cmd' }, 'accepted');
  await send('de', { country: 'DE', source: 'search' }, 'accepted');
  await send('fr', { country: 'FR' }, 'rejected');
  await send('dup', { phone: sent['gb-search']!.phone }, 'duplicate');
  await send('no-phone', { phone: undefined }, 'validation_error');
  // The deposit below is for a lead its agent has: the lead is assigned before it is sent.
  await until(
    async () => (await app.runtime.mongo.collections.leads.findOne({ _id: sent['gb-search']!.id! }))?.agent_id,
    10_000,
    'the lead to be assigned',
  );
  const deposit: Deposit = {
    deposit_id: randomUUID(),
    lead_id: sent['gb-search']!.id!,
    type: 'deposit',
    amount: AMOUNT,
    currency: 'EUR',
    occurred_at: new Date().toISOString(),
  };
  await produce(app.runtime, 'deposits', [deposit], () => deposit.lead_id);
  await deliveriesSettled(manager, acme.id, 'dead', (all) => all.some((d) => d.event === 'lead.ftd'));
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

const expectNothingPrivate = (body: unknown) =>
  expectNoPrivateData(body, { leads: Object.values(sent), agentId, amount: AMOUNT });

describe('overview', () => {
  it("shows today's received, accepted, duplicates, validation errors and rejections as sent", async () => {
    const today = await until(
      async () => {
        const res = await admin.client.get<{ totals: Record<string, unknown>; by_source: { source: string | null }[] }>(
          `/portal/api/overview?days=${overviewDays()}`,
        );
        return res.body.totals?.received === 6 && res.body.totals.ftd === 1 ? res.body : null;
      },
      45_000,
      'the overview to count what was sent',
    );
    expect(today.totals).toMatchObject({
      received: 6,
      accepted: 3,
      duplicates: 1,
      validation_errors: 1,
      rejected: 1,
      rejected_by_reason: { country: 1 },
      ftd: 1,
    });
    expect(today.by_source.map((r) => r.source)).toEqual(expect.arrayContaining(['search', '=cmd']));
    expect((await admin.client.get('/portal/api/overview?days=7')).body).toMatchObject({
      days: 7,
      totals: { received: 6 },
    });
    expect((await admin.client.get('/portal/api/overview?days=2')).status).toBe(422);
    expectNothingPrivate(today);
  });

  it('exports CSV whose every cell is safe in a spreadsheet', async () => {
    const res = await fetch(`${app.url}/portal/api/overview.csv?days=${overviewDays()}`, {
      headers: { cookie: admin.client.cookie! },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await res.text())
      .trimEnd()
      .split('\r\n')
      .map((l) => l.split(','));
    const [header, ...rows] = lines as [string[], ...string[][]];
    expect(header.slice(0, 4)).toEqual(['day', 'received', 'accepted', 'duplicates']);
    expect(rows.at(-1)!.slice(0, 3)).toEqual(['total', '6', '3']);
    // A cell a spreadsheet would run as a formula starts with a quote (the per-day CSV has no free text).
    expect(lines.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
  });
});

describe('leads', () => {
  type Row = { id: string; external_id: string; status: string; phone: string | null; country: string | null };

  it('lists its leads with a masked phone only, and filters them', async () => {
    // Not vacuous: the manager sees the agent and the money the portal leaves out.
    const managerView = JSON.stringify((await manager.get(`/api/leads/${sent['gb-search']!.id}`)).body);
    expect(managerView).toContain(agentId);
    const all = (await admin.client.get<Page<Row>>('/portal/api/leads')).body;
    expect(all.items.map((r) => r.external_id).sort()).toEqual(['de', 'fr', 'gb-formula', 'gb-search']);
    for (const row of all.items) expect(row.phone).toMatch(/^\+44 \d{2}\*\* \*\*\*\d{3}$/);
    expectNothingPrivate(all);
    const ids = async (q: string) =>
      (await admin.client.get<Page<Row>>(`/portal/api/leads?${q}`)).body.items.map((r) => r.external_id).sort();
    expect(await ids('status=rejected')).toEqual(['fr']);
    expect(await ids('country=DE')).toEqual(['de']);
    expect(await ids(`source=${encodeURIComponent('=cmd')}`)).toEqual(['gb-formula']);
    expect(await ids('external_id=gb-search')).toEqual(['gb-search']);
    expect(await ids(`from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    expect(await ids(`to=${new Date(Date.now() + 60_000).toISOString()}&limit=2`)).toHaveLength(2);
    expect((await admin.client.get('/portal/api/leads?country=Germany')).status).toBe(422);
  });

  it("shows a lead's timeline of the events it was told of, with their deliveries", async () => {
    const res = await admin.client.get<{
      timeline: { event: string; deliveries: { kind: string; state: string }[] }[];
      personal_data: string;
    }>(`/portal/api/leads/${sent['gb-search']!.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ external_id: 'gb-search', personal_data: 'kept' });
    const events = res.body.timeline.map((t) => t.event);
    expect(events[0]).toBe('lead.accepted');
    expect(events).toContain('lead.ftd');
    expect(res.body.timeline[0]!.deliveries).toEqual([expect.objectContaining({ kind: 'callback', state: 'dead' })]);
    expectNothingPrivate(res.body);
    expect((await admin.client.get('/portal/api/leads/le-000000000000')).status).toBe(404);
  });
});

describe('deliveries', () => {
  type Delivery = {
    id: string;
    state: string;
    event: string;
    attempts: { http_status: number | null; excerpt: string | null; duration_ms: number }[];
  };

  it('lists its deliveries with their attempts, and filters them', async () => {
    const dead = (await admin.client.get<Page<Delivery>>('/portal/api/deliveries?state=dead&kind=callback')).body.items;
    expect(dead.length).toBeGreaterThanOrEqual(4);
    const one = (await admin.client.get<Delivery>(`/portal/api/deliveries/${dead[0]!.id}`)).body;
    expect(one.attempts.length).toBeGreaterThanOrEqual(2);
    expect(one.attempts[0]).toMatchObject({
      http_status: 404,
      excerpt: 'no such hook',
      duration_ms: expect.any(Number),
    });
    const accepted = (await admin.client.get<Page<Delivery>>('/portal/api/deliveries?event=lead.accepted')).body.items;
    expect(accepted).toHaveLength(3);
    expectNothingPrivate([dead, one]);
  });

  it('retries a dead delivery, then all the dead ones; audited with the person', async () => {
    receiver.respond(acme.path, status(200, 'thanks'));
    const [first, ...rest] = (await admin.client.get<Page<Delivery>>('/portal/api/deliveries?state=dead')).body.items;
    const retried = await admin.client.post<Delivery>(`/portal/api/deliveries/${first!.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: first!.id, state: 'queued', retried_at: [expect.any(String)] });
    expect(JSON.stringify(retried.body)).not.toContain(admin.id); // when, never by whom
    await until(
      async () =>
        (await admin.client.get<Delivery>(`/portal/api/deliveries/${first!.id}`)).body.state === 'delivered' || null,
      20_000,
      'the retried delivery',
    );
    expect((await admin.client.post(`/portal/api/deliveries/${first!.id}/retry`)).status).toBe(409);

    expect((await admin.client.post('/portal/api/deliveries/retry-dead')).body).toEqual({
      requeued: rest.length,
      pending: 0,
    });
    await deliveriesSettled(manager, acme.id, 'delivered', () => true);
    expect((await auditOf('delivery.retry'))[1]).toMatchObject({
      actor: admin.id,
      actor_name: ADMIN_NAME,
      target: first!.id,
    });
    expect((await auditOf('delivery.retry_dead'))[0]).toMatchObject({
      actor_name: ADMIN_NAME,
      details: { requeued: rest.length, pending: 0 },
    });
    // The second retry was refused: audited too, as the manager's refusals are.
    expect((await auditOf('delivery.retry'))[0]).toMatchObject({
      actor_name: ADMIN_NAME,
      details: { refused: 'conflict', http_status: 409 },
    });
  });

  it('replays a time range, and refuses (and audits) a range that runs backwards', async () => {
    const before = receiver.at(acme.path).length;
    const range = { from: new Date(Date.now() - 600_000).toISOString(), to: new Date(Date.now() + 1000).toISOString() };
    const started = await admin.client.post<{ id: string; state: string }>('/portal/api/replays', range);
    expect(started.status).toBe(202);
    const done = await until(
      async () => {
        const job = (
          await admin.client.get<{ state: string; found: number; sent: number }>(
            `/portal/api/replays/${started.body.id}`,
          )
        ).body;
        return job.state === 'done' ? job : null;
      },
      30_000,
      'the replay done',
    );
    const total = (await manager.get<Page>(`/api/deliveries?affiliate_id=${acme.id}&limit=200`)).body.items.length;
    expect(done).toMatchObject({ found: total, sent: total });
    await receiver.waitFor(acme.path, before + total);
    expect((await auditOf('partner.replay'))[0]).toMatchObject({ actor_name: ADMIN_NAME, target: started.body.id });

    const backwards = await admin.client.post('/portal/api/replays', { from: range.to, to: range.from });
    expect(backwards.status).toBe(422);
    expect((await auditOf('partner.replay'))[0]).toMatchObject({
      actor: admin.id,
      details: { refused: 'invalid_request', http_status: 422 },
    });
  });

  it('sends a test callback, and shows endpoint health', async () => {
    const test = await admin.client.post('/portal/api/test-callback');
    expect(test.body).toMatchObject({ delivered: true, http_status: 200 });
    expect(receiver.at(acme.path).at(-1)!.signatureValid).toBe(true);
    type Health = { kind: string; state: string; attempts_24h: number };
    // Dispatchers report what they saw every ENDPOINT_HEALTH_REPORT_MS: the attempts show within one period.
    const health = await until(
      async () => {
        const items = (await admin.client.get<{ items: Health[] }>('/portal/api/endpoints')).body.items;
        return (items.find((h) => h.kind === 'callback')?.attempts_24h ?? 0) > 0 ? items : null;
      },
      15_000,
      'the callback attempts in the endpoint health',
    );
    expect(health.map((h) => h.kind).sort()).toEqual(['callback', 'postback']);
    expect(health.find((h) => h.kind === 'callback')).toMatchObject({ state: 'active' });
    expect((await admin.client.post('/portal/api/endpoints/callback/resume')).status).toBe(409); // not paused
  });
});

describe('a partner_viewer', () => {
  it('gets 403 on every action and 200 on every read, from the portal document', async () => {
    const delivery = (await admin.client.get<Page<{ id: string }>>('/portal/api/deliveries')).body.items[0]!.id;
    const replay = (await auditOf('partner.replay')).find((e) => e.target)!.target!;
    const ids: Record<string, string> = {
      leads: sent['gb-search']!.id!,
      deliveries: delivery,
      replays: replay,
      users: admin.id,
      endpoints: 'callback',
    };
    const answers: Record<string, number> = {};
    // One's own account (/me, /me/...) is every role's to change (portal-own-account.test.ts), not the partner's.
    const partners = (o: PortalOperation) =>
      o.access !== 'public' && !(o.method !== 'GET' && /\/me(\/|$)/.test(o.path));
    for (const op of (await portalOperations(app.url)).filter(partners)) {
      const path = fillPath(op, (param, resource) => {
        if (!ids[resource]) throw new Error(`no id for {${param}} of ${op.path}`);
        return ids[resource];
      });
      answers[operationName(op)] = (
        await viewer.client.send(
          op.method,
          `${path}${op.path.startsWith('/portal/api/overview') ? '?days=1' : op.path.endsWith('.csv') ? lastHour() : ''}`,
          op.hasBody ? {} : undefined,
        )
      ).status;
    }
    const expected = Object.fromEntries(
      Object.keys(answers).map((name) => [name, name.startsWith('GET ') && !name.endsWith('/users') ? 200 : 403]),
    );
    expect(answers).toEqual(expected);
    expect(Object.values(answers).filter((s) => s === 403).length).toBeGreaterThanOrEqual(10);
    // Refused for want of permission: audited with the viewer's id.
    expect((await auditOf('delivery.retry_dead')).find((e) => e.actor === viewer.id)).toMatchObject({
      details: { refused: 'forbidden', http_status: 403 },
    });
  });
});

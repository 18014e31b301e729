import { CallbackReceiver } from '../support/callback-receiver';
import { produce } from '../support/intake-commands';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// Sandbox partners on the real servers, every role: a partner with mode "test" is
// authenticated, validated, answered and called back like a live one, but its leads take no dedup
// claim, meet no live lead in dedup, reach no agent, and are marked test in every store and metric.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let sandbox: { id: string; client: PartnerClient };
let live: { id: string; client: PartnerClient };

type Created = { id: string; api_key: string; hmac_secret: string; callback_secret: string };

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  const make = async (name: string, settings: Record<string, unknown>) => {
    const created = (
      await manager.post<Created>('/api/affiliates', { name, callback_url: receiver.url(`/${name}`), ...settings })
    ).body;
    receiver.route(`/${name}`, created.callback_secret);
    return { id: created.id, client: new PartnerClient(app.url, created) };
  };
  sandbox = await make('sandbox', { mode: 'test' });
  live = await make('live', {});
  await manager.post('/api/agents', { name: 'Anyone' });
});

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

const db = () => app.runtime.mongo.db;
async function docsNaming(leadId: string): Promise<Record<string, Record<string, unknown>[]>> {
  const names = (await db().listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  const found: Record<string, Record<string, unknown>[]> = {};
  for (const name of names) {
    const docs = (await db().collection<{ _id: string; lead_id?: string }>(name).find().toArray()).filter(
      (d) => d._id === leadId || d.lead_id === leadId,
    );
    if (docs.length > 0) found[name.replace(/_\d+$/, '').replace(/_p\d+$/, '')] = docs;
  }
  return found;
}

it('answers, stores and calls back a sandbox lead like a live one, marked test everywhere, with no claim and no agent', async () => {
  const res = await sandbox.client.submitLead({
    phone: '+4915300000001',
    email: 'sandbox@example.com',
    country: 'DE',
    external_id: 'sb-1',
  });
  expect(res).toMatchObject({ status: 200, body: { status: 'accepted', reason: null } });
  const id = res.body.id as string;
  expect(await sandbox.client.leadStatus('sb-1')).toMatchObject({ status: 200, body: { id, status: 'new' } });
  const [callback] = await receiver.waitFor('/sandbox', 1);
  expect(callback).toMatchObject({
    signatureValid: true,
    body: { event: 'lead.accepted', internal_id: id, external_lead_id: 'sb-1' },
  });
  expect(callback!.body).not.toHaveProperty('test'); // the partner's callback body is the production one

  await new Promise((r) => setTimeout(r, 1500)); // three distribution rounds: still nobody's
  const stores = await until(
    async () => {
      const found = await docsNaming(id);
      return found.deliveries ? found : null;
    },
    15000,
    'the delivery record',
  );
  // No dedup claim, no waiting lead; every store that names the lead marks it test.
  expect(Object.keys(stores).sort()).toEqual([
    'deliveries',
    'delivery_list',
    'intake_decisions',
    'lead_keys',
    'lead_refs',
    'leads',
  ]);
  for (const [store, docs] of Object.entries(stores)) {
    for (const doc of docs) expect(store === 'deliveries' ? doc.event : doc).toMatchObject({ test: true });
  }
  expect(stores.leads![0]).toMatchObject({ status: 'new', agent_id: null });
  expect(await manager.get(`/api/leads/${id}`)).toMatchObject({
    body: { test: true, status: 'new', agent_id: null, risk: { score: 0 } },
  });
  const deliveries = await manager.get<{ items: { lead_id: string; test: boolean }[] }>(
    `/api/deliveries?affiliate_id=${sandbox.id}`,
  );
  expect(deliveries.body.items).toEqual([expect.objectContaining({ lead_id: id, test: true })]);
});

it("marks a sandbox lead's client and deposits test too, and calls its lead.ftd back", async () => {
  const res = await sandbox.client.submitLead({ phone: '+4915300000010', external_id: 'sb-ftd' });
  const id = res.body.id as string;
  await produce(
    app.runtime,
    'deposits',
    [
      {
        deposit_id: `dep-${id}`,
        lead_id: id,
        type: 'deposit',
        amount: '10.00',
        currency: 'EUR',
        occurred_at: new Date().toISOString(),
      },
    ],
    () => id,
  );
  const client = await until(() => app.runtime.mongo.collections.clients.findOne({ lead_id: id }), 15000, 'the client');
  expect(client).toMatchObject({ test: true });
  expect(await app.runtime.mongo.collections.deposits.findOne({ _id: `dep-${id}` })).toMatchObject({
    test: true,
    lead_id: id,
  });
  await until(
    async () => receiver.at('/sandbox').some((c) => c.body.internal_id === id && c.body.event === 'lead.ftd'),
    15000,
    'the lead.ftd callback',
  );
});

it('keeps sandbox and live leads apart in dedup, both ways', async () => {
  const livePhone = '+4915300000002';
  const first = await live.client.submitLead({ phone: livePhone, external_id: 'live-1' });
  expect(first).toMatchObject({ status: 200, body: { status: 'accepted' } });
  expect(await sandbox.client.submitLead({ phone: livePhone, external_id: 'sb-2' })).toMatchObject({
    status: 200,
    body: { status: 'accepted' },
  });
  const sandboxPhone = '+4915300000003';
  expect(await sandbox.client.submitLead({ phone: sandboxPhone, external_id: 'sb-3' })).toMatchObject({
    status: 200,
    body: { status: 'accepted' },
  });
  expect(await sandbox.client.submitLead({ phone: sandboxPhone, external_id: 'sb-4' })).toMatchObject({
    status: 200,
    body: { status: 'accepted' },
  });
  const liveLead = await live.client.submitLead({ phone: sandboxPhone, external_id: 'live-2' });
  expect(liveLead).toMatchObject({ status: 200, body: { status: 'accepted' } });
  // The live lead goes to the agent; the sandbox ones never do.
  await until(
    async () =>
      (await manager.get<{ status: string }>(`/api/leads/${liveLead.body.id as string}`)).body.status === 'assigned',
    15000,
    'the live lead assigned',
  );
  // Validation and external ids still answer as in production.
  expect(await sandbox.client.submitLead({ phone: 'nope' })).toMatchObject({
    status: 422,
    body: { status: 'validation_error', reason: 'invalid_format:phone' },
  });
  expect(await sandbox.client.submitLead({ phone: '+4915300000009', external_id: 'sb-3' })).toMatchObject({
    status: 409,
    body: { status: 'duplicate' },
  });
});

it('labels sandbox requests, decisions, events and callbacks test in the metrics', async () => {
  await receiver.waitFor('/sandbox', 6);
  const metrics = [
    'lead_intake_requests_total',
    'lead_intake_processor_decisions_total',
    'lead_intake_lead_events_total',
    'lead_intake_callback_deliveries_total',
  ];
  const labelled = (text: string, metric: string, test: string) =>
    new RegExp(`^${metric}\\{[^}]*test="${test}"[^}]*\\} [1-9]`, 'm').test(text);
  // A delivery is counted once its answer is read, just after the receiver saw it.
  const text = await until(
    async () => {
      const t = await (await fetch(`${app.url}/metrics`)).text();
      return metrics.every((m) => labelled(t, m, 'true') && labelled(t, m, 'false')) ? t : null;
    },
    5000,
    'every metric labelled both ways',
  );
  for (const metric of metrics) {
    expect(labelled(text, metric, 'true')).toBe(true);
    expect(labelled(text, metric, 'false')).toBe(true);
  }
});

it('refuses a mode other than live or test with 422 and changes nothing', async () => {
  expect(await manager.patch(`/api/affiliates/${sandbox.id}`, { mode: 'sandbox' })).toMatchObject({
    status: 422,
    body: { error: 'invalid_request' },
  });
  expect((await manager.get(`/api/affiliates/${sandbox.id}`)).body).toMatchObject({ mode: 'test' });
  expect((await manager.patch(`/api/affiliates/${live.id}`, { mode: 'live' })).body).toMatchObject({ mode: 'live' });
});

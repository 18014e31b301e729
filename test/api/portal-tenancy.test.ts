import { CallbackReceiver, status } from '../support/callback-receiver';
import { ManagerClient } from '../support/manager-client';
import { deliveriesSettled, receivingPartner, sendLead, type FedPartner } from '../support/portal-data';
import { portalSession, type PortalClient, type PortalPerson } from '../support/portal-client';
import { fillPath, operationName, portalOperations, type PortalOperation } from '../support/portal-operations';
import { startTestApp, type TestApp } from '../support/test-app';

// Two partners, A and B, each with leads, deliveries, a replay and people. A's session calls every
// operation of the portal's own OpenAPI document (a route added later is called too, or the test
// says why it cannot be) with B's ids, and gets 404; no answer to A's session, of any operation,
// carries anything of B's.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let a: FedPartner;
let b: FedPartner;
let adminA: PortalPerson;
const bIds: Record<'lead' | 'delivery' | 'replay' | 'user', string> = { lead: '', delivery: '', replay: '', user: '' };
let bSecrets: string[] = []; // B's identifiers: ids, external ids, name, people, keys
let bAdminEmail = '';
const aLeads: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  a = await receivingPartner(manager, receiver, 'alpha-leads', status(200));
  b = await receivingPartner(manager, receiver, 'beta-brokers', status(200));
  adminA = await portalSession(app.url, a.id);
  const adminB = await portalSession(app.url, b.id);
  const viewerB = await portalSession(app.url, b.id, 'partner_viewer', adminB);
  const bExternal: string[] = [];
  for (let i = 1; i <= 2; i++) {
    aLeads.push((await sendLead(app.url, a, { external_id: `alpha-ext-${i}` })).id!);
    const lead = await sendLead(app.url, b, { external_id: `beta-ext-${i}`, source: 'beta-source' });
    bIds.lead = lead.id!;
    bExternal.push(lead.externalId, lead.email, lead.phone.slice(3));
  }
  await deliveriesSettled(manager, a.id, 'delivered', (all) => all.length >= 2);
  const bDeliveries = await deliveriesSettled(manager, b.id, 'delivered', (all) => all.length >= 2);
  bIds.delivery = bDeliveries[0]!.id;
  const replay = await adminB.client.post<{ id: string }>('/portal/api/replays', {
    from: new Date(Date.now() - 600_000).toISOString(),
    to: new Date().toISOString(),
  });
  expect(replay.status).toBe(202);
  bIds.replay = replay.body.id;
  bIds.user = viewerB.id;
  bAdminEmail = adminB.email;
  bSecrets = [
    b.id,
    b.name,
    b.api_key,
    b.hmac_secret,
    b.callback_secret,
    b.path,
    'beta-source',
    adminB.id,
    adminB.email,
    viewerB.id,
    viewerB.email,
    ...bExternal,
    ...bDeliveries.map((d) => d.id),
    bIds.replay,
  ];
}, 120_000);

afterAll(async () => {
  await receiver?.stop();
  await app?.destroy();
});

// A body for each operation that takes one: an operation with a body and no entry here is not
// exercised, and the test fails saying so.
function bodyOf(op: PortalOperation): unknown {
  const now = Date.now();
  const bodies: Record<string, unknown> = {
    'POST /portal/api/replays': { from: new Date(now - 3_600_000).toISOString(), to: new Date(now).toISOString() },
    'POST /portal/api/integration/rotate': { which: ['callback_secret'], grace_seconds: 0 },
    'PATCH /portal/api/integration': { callback_events: [] },
    'POST /portal/api/users': { email: `colleague-${now}@alpha.example`, name: 'Colleague', role: 'partner_viewer' },
    'POST /portal/api/test-postback': { event: 'lead.accepted' },
    'PUT /portal/api/me/alerts': { kinds: ['cap_reached'] },
    'PUT /portal/api/alerts/webhook': { url: 'https://hooks.alpha.example/alerts' },
    'POST /portal/api/me/password': { current_password: 'not the password', new_password: 'a long enough password' },
    'PATCH /portal/api/me': { time_zone: 'Europe/Berlin' },
    // B's admin's email with a wrong password: the refusal names no account of B's.
    'POST /portal/api/auth/sign-in': { email: bAdminEmail, password: 'not the password' },
    'POST /portal/api/auth/totp': { code: '000000' },
    'POST /portal/api/auth/totp/confirm': { code: '000000' },
    'POST /portal/api/auth/reauthenticate': { current_password: 'not the password' },
    // A link is its holder's; none of B's is A's to try.
    'POST /portal/api/auth/links/peek': { token: 'no-such-link-token' },
    'POST /portal/api/auth/links/use': { token: 'no-such-link-token', password: 'a long enough password' },
    'POST /portal/api/auth/passkey': { response: { id: 'x', rawId: 'x', type: 'public-key', response: {} } },
    'POST /portal/api/auth/passkey/register': {
      name: 'key',
      response: { id: 'x', rawId: 'x', type: 'public-key', response: {} },
    },
  };
  const name = operationName(op);
  if (!(name in bodies)) throw new Error(`${name} takes a body and this test has none for it: add one to bodyOf`);
  return bodies[name];
}

// B's id for a path parameter, by the resource it names; a parameter this test does not know fails it.
function bIdFor(param: string, resource: string): string {
  const byResource: Record<string, string> = {
    leads: bIds.lead,
    deliveries: bIds.delivery,
    replays: bIds.replay,
    users: bIds.user,
  };
  if (param === 'id' && byResource[resource]) return byResource[resource];
  if (param === 'kind') return 'callback'; // no id: the answer is A's own endpoint
  throw new Error(`no id of B's for {${param}} of ${resource}: add one to bIdFor`);
}

// Raw text of the answer (CSV included), with A's cookie and CSRF token as the portal's pages send them.
async function call(
  client: PortalClient,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { cookie: client.cookie!, 'x-csrf-token': client.csrf! };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const leaks = (text: string): string[] => bSecrets.filter((s) => s && text.includes(s));

it("answers A's session with 404 for every id of B's, and nothing of B's in any answer of any operation", async () => {
  const ops = await portalOperations(app.url);
  // The sign-in steps last (they may change the session's stage), signing out (here or everywhere) at the very end.
  const rank = (op: PortalOperation) =>
    /\/sign-out(-everywhere)?$/.test(op.path) ? 2 : op.access === 'public' ? 1 : 0;
  ops.sort((x, y) => rank(x) - rank(y));
  const results: Record<string, { status: number; leaked: string[] }> = {};
  const expected: Record<string, { status: unknown; leaked: string[] }> = {};
  for (const op of ops) {
    const path = fillPath(op, bIdFor);
    const query = op.path.startsWith('/portal/api/overview') ? '?days=30' : '';
    const res = await call(adminA.client, op.method, `${path}${query}`, op.hasBody ? bodyOf(op) : undefined);
    const name = operationName(op);
    results[name] = { status: res.status, leaked: leaks(res.text) };
    const byId = op.access !== 'public' && /\/\{id\}/.test(op.path);
    expected[name] = { status: byId ? 404 : expect.any(Number), leaked: [] };
  }
  expect(results).toEqual(expected);
  expect(Object.keys(results)).toHaveLength(ops.length);
  // leads, deliveries (show, retry), replays, users (disable) at least.
  expect(Object.values(results).filter((r) => r.status === 404).length).toBeGreaterThanOrEqual(5);
});

it("answers A's lists with A's own data only, and B's values as filters find nothing", async () => {
  const session = await portalSession(app.url, a.id);
  const lists = [
    '/portal/api/leads?limit=200',
    '/portal/api/deliveries?limit=200',
    '/portal/api/overview?days=30',
    '/portal/api/overview.csv?days=30',
    '/portal/api/users',
    '/portal/api/endpoints',
    '/portal/api/integration',
    '/portal/api/session',
    '/portal/api/statuses',
    '/portal/api/caps',
    `/portal/api/leads.csv?from=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
  ];
  for (const path of lists) {
    const res = await call(session.client, 'GET', path);
    expect({ path, status: res.status, leaked: leaks(res.text) }).toEqual({ path, status: 200, leaked: [] });
  }
  // Not vacuous: A's own leads are there, and its own ids are found where B's are not.
  expect((await call(session.client, 'GET', '/portal/api/leads')).text).toContain(aLeads[0]);
  expect((await call(session.client, 'GET', `/portal/api/leads/${aLeads[0]}`)).status).toBe(200);
  const [own] = (await session.client.get<{ items: { id: string }[] }>('/portal/api/deliveries')).body.items;
  expect((await call(session.client, 'GET', `/portal/api/deliveries/${own!.id}`)).status).toBe(200);
  for (const q of ['external_id=beta-ext-1', 'source=beta-source']) {
    expect((await session.client.get<{ items: unknown[] }>(`/portal/api/leads?${q}`)).body.items).toEqual([]);
  }
});

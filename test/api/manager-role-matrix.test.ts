import { PERMISSIONS, ROLES, can, rolesWith, type Permission, type Role } from '../../src/identity/roles';
import type { IntakeReply } from '../../src/shared/schemas';
import { CallbackReceiver, status } from '../support/callback-receiver';
import { ManagerClient } from '../support/manager-client';
import { acceptedLead, deliveriesOf, roleToken } from '../support/manager-data';
import { docsMatrix } from '../support/role-docs';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe } from '../support/topic-probe';

// The role matrix, walked: every operation of the manager's OpenAPI document with every role (a
// service account's token each), its answer checked against ROLE_PERMISSIONS. A role without the
// permission gets exactly 403 `forbidden`, before its (empty) body is read; a role with it never
// gets 401 or 403. A route added without a rule does not start; one added with a rule is walked here.
let app: TestApp;
let manager: ManagerClient;
let receiver: CallbackReceiver;
let replies: TopicProbe<IntakeReply>;
const tokens = {} as Record<Role, string>;
// The id each path's {id} (and {externalId}) stands for, by the path's first segment.
const ids: Record<string, string> = {};

type Operation = { 'x-access'?: string; 'x-roles'?: string[] | string; requestBody?: { required?: boolean } };
type OpenApi = { paths: Record<string, Record<string, Operation>> };

// The sign-in steps: public, reading the session themselves.
const PUBLIC = /^\/api\/(auth\/|session$)/;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  manager = new ManagerClient(app.url);
  receiver = await new CallbackReceiver().start();
  replies = await new TopicProbe<IntakeReply>(app.runtime, 'intakeReplies').start();
  const partner = await manager.post<{ id: string; callback_secret: string }>('/api/affiliates', {
    name: 'Matrix',
    callback_url: receiver.url('/matrix'),
  });
  receiver.route('/matrix', partner.body.callback_secret, status(200, 'ok'));
  const lead = await acceptedLead(app, replies, partner.body.id, 1);
  const [delivery] = await deliveriesOf(manager, partner.body.id, 1);
  const now = Date.now();
  const replay = await manager.post<{ id: string }>(`/api/affiliates/${partner.body.id}/replay`, {
    from: new Date(now - 3600_000).toISOString(),
    to: new Date(now).toISOString(),
  });
  const agent = await manager.post<{ id: string }>('/api/agents', { name: 'Matrix agent' });
  const account = await manager.post<{ account: { id: string } }>('/api/accounts', {
    email: 'matrix@example.com',
    name: 'Matrix',
    role: 'analyst',
  });
  // Revoked by each role that may: never one of the tokens the walk uses.
  const spare = await roleToken(app.url, 'support');
  Object.assign(ids, {
    affiliates: partner.body.id,
    leads: lead.id,
    externalId: lead.externalId,
    deliveries: delivery!,
    replays: replay.body.id,
    agents: agent.body.id,
    accounts: account.body.account.id,
    'service-accounts': spare.id,
  });
  for (const role of ROLES)
    tokens[role] = (await roleToken(app.url, role, role === 'affiliate_manager' ? [partner.body.id] : [])).token;
}, 120000);

afterAll(async () => {
  await replies?.stop();
  await receiver?.stop();
  await app?.destroy();
});

function concretePath(template: string): string {
  const resource = template.split('/')[2]!;
  return template
    .replace('{externalId}', encodeURIComponent(ids.externalId!))
    .replace('{id}', encodeURIComponent(ids[resource] ?? 'no-such-id'));
}

async function operations(): Promise<{ method: string; path: string; op: Operation }[]> {
  const doc = (await manager.withToken(null).get<OpenApi>('/api/openapi.json')).body;
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

// A minimal request: no body on a read, an empty object on a change (a 403 comes before it is read).
async function call(role: Role, method: string, path: string): Promise<{ status: number; error?: string }> {
  const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
  const headers: Record<string, string> = {
    authorization: `Bearer ${tokens[role]}`,
    ...(body && { 'content-type': 'application/json' }),
  };
  const res = await fetch(`${app.url}${concretePath(path)}`, { method, headers, body });
  const json = res.headers.get('content-type')?.includes('json')
    ? ((await res.json()) as { error?: string })
    : (await res.text(), {});
  return { status: res.status, error: json.error };
}

describe('role matrix', () => {
  it('documents every operation with its access and the roles that have it', async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(40);
    for (const { method, path, op } of ops) {
      const where = `${method} ${path}`;
      const access = op['x-access'] ?? 'none';
      // A public route is a decision: only the sign-in steps are.
      if (access === 'public') expect({ where, public: PUBLIC.test(path) }).toEqual({ where, public: true });
      if (access === 'public' || access === 'signed_in') continue;
      expect({ where, access: (PERMISSIONS as readonly string[]).includes(access) }).toEqual({ where, access: true });
      expect({ where, roles: op['x-roles'] }).toEqual({ where, roles: rolesWith(access as Permission) });
    }
  });

  it("covers in the docs' matrix exactly the routes each permission guards", async () => {
    const documented = Object.fromEntries(docsMatrix().rows.map((r) => [r.permission, [...r.routes].sort()]));
    const served: Record<string, string[]> = {};
    for (const { method, path, op } of await operations()) {
      const access = op['x-access'];
      if (access && access !== 'public' && access !== 'signed_in') (served[access] ??= []).push(`${method} ${path}`);
    }
    for (const routes of Object.values(served)) routes.sort();
    expect(documented).toEqual(served);
  });

  it('answers each role as the matrix says, on every operation', async () => {
    const wrong: string[] = [];
    const answers: Record<string, number> = {};
    for (const { method, path, op } of await operations()) {
      const access = op['x-access'];
      if (access === undefined || access === 'public') continue;
      for (const role of ROLES) {
        const res = await call(role, method, path);
        const where = `${role} ${method} ${path}: ${res.status} ${res.error ?? ''}`;
        answers[res.status] = (answers[res.status] ?? 0) + 1;
        if (access === 'signed_in') {
          // Everyone signed in may; a service account has no password or sessions (409).
          const ok =
            (res.status >= 200 && res.status < 300) ||
            res.status === 409 ||
            (res.status === 422 && op.requestBody?.required === true);
          if (!ok) wrong.push(where);
        } else if (can(role, access as Permission)) {
          if (res.status === 401 || res.status === 403 || res.status >= 500) wrong.push(where);
        } else if (res.status !== 403 || res.error !== 'forbidden') {
          wrong.push(where);
        }
      }
    }
    expect(wrong).toEqual([]);
    // Both sides of the matrix were walked, and most permitted calls did their work.
    expect(answers[403]).toBeGreaterThan(150);
    expect(answers[200]).toBeGreaterThan(80);
  }, 180000);

  it('lets an affiliate manager reach only its own partner by id (404 elsewhere)', async () => {
    const other = await manager.post<{ id: string }>('/api/affiliates', { name: 'Not theirs' });
    const scoped = manager.withToken(tokens.affiliate_manager);
    expect((await scoped.get(`/api/affiliates/${ids.affiliates}`)).status).toBe(200);
    expect((await scoped.get(`/api/affiliates/${other.body.id}`)).status).toBe(404);
    expect((await scoped.get(`/api/affiliates/${other.body.id}/endpoint-health`)).status).toBe(404);
  });
});

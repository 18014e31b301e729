import type { Db } from 'mongodb';
import { ROLES, can, type Permission, type Role } from '../../src/identity/roles';
import type { AuditDoc } from '../../src/shared/mongo/documents';
import { ManagerClient } from '../support/manager-client';
import { roleToken } from '../support/manager-data';
import { SessionClient } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { MANAGER_TOKEN } from '../support/test-config';
import { sha256Hex } from '../../src/shared/crypto/lookup-hash';

// Every refusal after authentication of a sensitive operation leaves an audit entry: each such operation of the
// OpenAPI document, called by every role the matrix refuses (and by the break-glass token where an owner is
// refused); failed bearer tokens, audited and throttled per address; the per-address sign-in limit.
const SENSITIVE: readonly Permission[] = [
  'contacts.reveal',
  'audit.read',
  'accounts.read',
  'accounts.manage',
  'tokens.manage',
  'partners.secrets',
  'leads.erase',
];

let app: TestApp;
let db: Db;
const tokens = {} as Record<Role, { id: string; token: string }>;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  db = app.runtime.mongo.db;
  for (const role of ROLES) tokens[role] = await roleToken(app.url, role);
}, 60_000);

afterAll(async () => {
  await app?.destroy();
});

type Operation = { 'x-access'?: string };
async function sensitiveOperations(): Promise<{ method: string; path: string; access: Permission }[]> {
  const doc = (
    await new ManagerClient(app.url, null).get<{ paths: Record<string, Record<string, Operation>> }>(
      '/api/openapi.json',
    )
  ).body;
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => SENSITIVE.includes(op['x-access'] as Permission))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, access: op['x-access'] as Permission })),
  );
}

const refusalsBy = (actor: string) =>
  db
    .collection<AuditDoc>('audit_log')
    .find({ actor, 'details.refused': { $exists: true } })
    .toArray();

async function call(token: string, method: string, path: string): Promise<number> {
  const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
  const res = await fetch(`${app.url}${path.replace(/\{[^}]+\}/g, 'x-1')}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body && { 'content-type': 'application/json' }) },
    body,
  });
  await res.text();
  return res.status;
}

describe('refusals of sensitive operations', () => {
  it('are each audited once, for every role the matrix refuses', async () => {
    const ops = await sensitiveOperations();
    expect(ops.map((o) => o.access).sort()).toEqual(expect.arrayContaining([...SENSITIVE]));
    const missing: string[] = [];
    for (const { method, path, access } of ops)
      for (const role of ROLES.filter((r) => !can(r, access))) {
        const before = (await refusalsBy(tokens[role].id)).length;
        expect(await call(tokens[role].token, method, path)).toBe(403);
        const after = await refusalsBy(tokens[role].id);
        if (after.length !== before + 1) missing.push(`${role} ${method} ${path}: ${after.length - before} entries`);
        else expect(after.at(-1)!.details).toMatchObject({ refused: 'forbidden', http_status: 403 });
      }
    expect(missing).toEqual([]);
  });

  it("audit the break-glass token's refused contact reveal", async () => {
    const actor = `break-glass:${sha256Hex(MANAGER_TOKEN).slice(0, 6)}`;
    const before = (await refusalsBy(actor)).length;
    expect(await call(MANAGER_TOKEN, 'GET', '/api/leads/{id}/contact')).toBe(403);
    const after = await refusalsBy(actor);
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)).toMatchObject({ action: 'lead.contact_reveal', target: 'x-1' });
  });
});

describe('the per-address sign-in limit', () => {
  it('is audited when it is hit', async () => {
    for (let i = 0; i < 50; i++) {
      const res = await new SessionClient(app.url).post('/api/auth/sign-in', {
        email: `nobody-${i}@example.com`,
        password: 'not the password at all',
      });
      expect(res.status).toBe(401);
    }
    const locks = await db.collection<AuditDoc>('audit_log').find({ action: 'account.locked' }).toArray();
    expect(locks.map((l) => l.details)).toContainEqual(expect.objectContaining({ limit: 'address' }));
  }, 120_000);
});

describe('a failed bearer token', () => {
  it('is audited, and past the limit its address is refused for a while', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push(await call(`lit_wrong${i}`, 'GET', '/api/leads'));
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses[20]).toBe(429);
    const refused = await db
      .collection<AuditDoc>('audit_log')
      .find({ action: 'service_account.token_refused' })
      .toArray();
    expect(refused.length).toBeGreaterThanOrEqual(20);
    expect(refused[0]).toMatchObject({ actor: 'anonymous', client_address: '127.0.0.1' });
    expect(await call(tokens.owner.token, 'GET', '/api/leads')).toBe(429);
  });
});

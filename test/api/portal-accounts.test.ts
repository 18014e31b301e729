import type { Db } from 'mongodb';
import type { AuditDoc } from '../../src/shared/mongo/documents';
import { ManagerClient } from '../support/manager-client';
import {
  enrolPortal,
  inviteFirstAdmin,
  PORTAL_PASSWORD,
  PortalClient,
  portalSession,
  portalSignIn,
  type PortalPerson,
} from '../support/portal-client';
import { enrol, invite, SessionClient } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { MANAGER_TOKEN } from '../support/test-config';

// A partner's people in the portal, on the same account base as managers but in a realm of their
// own: a manager invites a partner's first admin, who invites colleagues; sessions, cookies, links
// and sign-ins never cross between the portal and the manager; everything is audited with the
// person and the partner, so the partner's manager sees it.
let app: TestApp;
let db: Db;
let owner: ManagerClient;
let partnerA: string;
let partnerB: string;
let managerOfA: SessionClient; // affiliate_manager of A only
let admin: PortalPerson; // partner_admin of A
let viewer: PortalPerson; // partner_viewer of A
const MANAGER_PASSWORD = 'correct horse battery staple';

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const cookieValue = (cookie: string | null) => (cookie ?? '').split('=').slice(1).join('=');

async function partner(name: string): Promise<string> {
  const res = await owner.post<{ id: string }>('/api/affiliates', { name, callback_url: `http://127.0.0.1:9/${name}` });
  if (res.status !== 201) throw new Error(`partner: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

async function raw(
  path: string,
  cookie: string,
  method = 'GET',
  extra: Record<string, string> = {},
): Promise<{ status: number; body: { error?: string } }> {
  const res = await fetch(`${app.url}${path}`, { method, headers: { cookie, ...extra } });
  return { status: res.status, body: (await res.json()) as { error?: string } };
}

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  db = app.runtime.mongo.db;
  owner = new ManagerClient(app.url);
  partnerA = await partner('portal-a');
  partnerB = await partner('portal-b');
  const invited = await invite(app.url, { email: email('am'), role: 'affiliate_manager', partner_ids: [partnerA] });
  managerOfA = (await enrol(app.url, invited, MANAGER_PASSWORD)).client;
});

afterAll(async () => {
  await app?.destroy();
});

describe("a partner's first admin", () => {
  it('is invited by a manager who may manage the partner, and by no other', async () => {
    expect(
      (await managerOfA.post(`/api/affiliates/${partnerB}/portal-invitations`, { email: email('x'), name: 'X' }))
        .status,
    ).toBe(404);
    expect(
      (await managerOfA.post('/api/affiliates/af-unknown/portal-invitations', { email: email('x'), name: 'X' })).status,
    ).toBe(404);
    const support = (
      await enrol(app.url, await invite(app.url, { email: email('sup'), role: 'support' }), MANAGER_PASSWORD)
    ).client;
    expect(
      (await support.post(`/api/affiliates/${partnerA}/portal-invitations`, { email: email('x'), name: 'X' })).body,
    ).toMatchObject({ error: 'forbidden' });

    const invitation = await inviteFirstAdmin(app.url, partnerA, { name: 'Ada Admin' }, managerOfA);
    expect(invitation.user).toMatchObject({ role: 'partner_admin', partner_id: partnerA, status: 'invited' });
    expect(invitation.link.url).toMatch(new RegExp(`^http://.+/portal/#/link/${invitation.link.token}$`));
    // A link of the portal means nothing to the manager's link routes, and is not used up by them.
    expect(
      (await new SessionClient(app.url).post(`/api/auth/links/peek`, { token: invitation.link.token })).status,
    ).toBe(410);
    const peek = await new PortalClient(app.url).post(`/portal/api/auth/links/peek`, { token: invitation.link.token });
    expect(peek.body).toMatchObject({ kind: 'invitation', email: invitation.user.email, role: 'partner_admin' });

    admin = await enrolPortal(app.url, invitation);
    const session = await admin.client.get('/portal/api/session');
    expect(session.body).toMatchObject({
      stage: 'signed_in',
      account: {
        id: invitation.user.id,
        name: 'Ada Admin',
        role: 'partner_admin',
        partner_id: partnerA,
        partner_name: 'portal-a',
      },
      permissions: ['portal.read', 'portal.act', 'portal.users'],
    });
    // The link worked once.
    expect(
      (
        await new PortalClient(app.url).post(`/portal/api/auth/links/use`, {
          token: invitation.link.token,
          password: PORTAL_PASSWORD,
        })
      ).status,
    ).toBe(410);
    // The same email again while the account is in use: a conflict, not a second account.
    expect(
      (
        await owner.post(`/api/affiliates/${partnerA}/portal-invitations`, {
          email: invitation.user.email,
          name: 'Again',
        })
      ).status,
    ).toBe(409);
  });

  it('signs in again with the password and a TOTP code, and signs out', async () => {
    const client = await portalSignIn(app.url, admin);
    expect((await client.get('/portal/api/users')).status).toBe(200);
    expect((await client.post('/portal/api/auth/sign-out')).status).toBe(204);
    expect((await client.get('/portal/api/users')).body).toMatchObject({ error: 'portal_unauthorized' });
  });
});

describe('colleagues', () => {
  it('are invited by a partner admin as a viewer, who may read but not manage people', async () => {
    viewer = await portalSession(app.url, partnerA, 'partner_viewer', admin);
    expect((await viewer.client.get('/portal/api/session')).body).toMatchObject({
      account: { role: 'partner_viewer', partner_id: partnerA },
      permissions: ['portal.read'],
    });
    expect(
      (await viewer.client.post('/portal/api/users', { email: email('v2'), name: 'V2', role: 'partner_viewer' })).body,
    ).toMatchObject({ error: 'forbidden' });
    expect((await viewer.client.get('/portal/api/users')).status).toBe(403);
    const list = await admin.client.get<{ items: { id: string; partner_id: string; role: string }[] }>(
      '/portal/api/users',
    );
    expect(list.body.items.map((u) => u.id).sort()).toEqual([admin.id, viewer.id].sort());
  });

  it("are only ever the partner's own: another partner's person is unknown (404)", async () => {
    const other = await portalSession(app.url, partnerB, 'partner_admin');
    expect((await admin.client.post(`/portal/api/users/${other.id}/disable`)).status).toBe(404);
    expect(
      (await other.client.get<{ items: { id: string }[] }>('/portal/api/users')).body.items.map((u) => u.id),
    ).toEqual([other.id]);
    expect((await admin.client.post(`/portal/api/users/${admin.id}/disable`)).status).toBe(409);
    // A request that changes something without the CSRF token is refused.
    expect((await raw(`/portal/api/users/${viewer.id}/disable`, admin.client.cookie!, 'POST')).body).toMatchObject({
      error: 'csrf_invalid',
    });
  });

  it('once disabled lose every session at once and cannot sign in', async () => {
    const second = await portalSignIn(app.url, viewer);
    const disabled = await admin.client.post(`/portal/api/users/${viewer.id}/disable`);
    expect(disabled.body).toMatchObject({ id: viewer.id, status: 'disabled' });
    for (const client of [viewer.client, second]) expect((await client.get('/portal/api/session')).status).toBe(401);
    const again = new PortalClient(app.url);
    expect(
      (await again.post('/portal/api/auth/sign-in', { email: viewer.email, password: PORTAL_PASSWORD })).body,
    ).toMatchObject({ error: 'account_disabled' });
  });
});

describe('the realms', () => {
  it("never let a manager's session or token work on the portal", async () => {
    const managerCookie = managerOfA.cookie!;
    expect((await raw('/portal/api/session', managerCookie)).status).toBe(401);
    // The manager's cookie value under the portal's cookie name: its session is not the portal's.
    expect((await raw('/portal/api/users', `lit_portal=${cookieValue(managerCookie)}`)).body).toMatchObject({
      error: 'portal_unauthorized',
    });
    expect((await raw('/portal/api/session', `lit_portal=${cookieValue(managerCookie)}`)).status).toBe(401);
    // A manager's token (here a break-glass owner's) is no credential on the portal.
    const bearer = await fetch(`${app.url}/portal/api/users`, {
      headers: { authorization: `Bearer ${MANAGER_TOKEN}` },
    });
    expect(bearer.status).toBe(401);
    // Even beside a good portal session, a bearer token is refused.
    expect(
      (await raw('/portal/api/users', admin.client.cookie!, 'GET', { authorization: 'Bearer anything' })).status,
    ).toBe(401);
  });

  it('never let a portal session work on the manager', async () => {
    const portalCookie = admin.client.cookie!;
    expect((await raw('/api/affiliates', portalCookie)).status).toBe(401);
    expect((await raw('/api/affiliates', `lit_session=${cookieValue(portalCookie)}`)).body).toMatchObject({
      error: 'manager_unauthorized',
    });
    expect((await raw('/api/session', `lit_session=${cookieValue(portalCookie)}`)).status).toBe(401);
    // The portal cookie is sent only to the portal's API.
    const set = await new PortalClient(app.url).post('/portal/api/auth/sign-in', {
      email: admin.email,
      password: PORTAL_PASSWORD,
    });
    expect(set.headers.getSetCookie().join(';')).toMatch(
      /lit_portal=[^;]+; Path=\/portal\/api\/; HttpOnly; SameSite=Lax/,
    );
  });

  it("answer a sign-in of the other realm's account as a wrong password", async () => {
    const portalOnManager = await new SessionClient(app.url).post('/api/auth/sign-in', {
      email: admin.email,
      password: PORTAL_PASSWORD,
    });
    expect(portalOnManager.status).toBe(401);
    expect(portalOnManager.body).toMatchObject({ error: 'invalid_credentials' });
    const managerAccount = await invite(app.url, { email: email('mgr'), role: 'analyst' });
    await enrol(app.url, managerAccount, MANAGER_PASSWORD);
    const managerOnPortal = await new PortalClient(app.url).post('/portal/api/auth/sign-in', {
      email: managerAccount.email,
      password: MANAGER_PASSWORD,
    });
    expect(managerOnPortal.status).toBe(401);
    expect(managerOnPortal.body).toMatchObject({ error: 'invalid_credentials' });
    // A manager's link on the portal's link route is unknown there (and still works at the manager).
    const link = await invite(app.url, { email: email('lnk'), role: 'analyst' });
    expect(
      (
        await new PortalClient(app.url).post(`/portal/api/auth/links/use`, {
          token: link.token,
          password: PORTAL_PASSWORD,
        })
      ).status,
    ).toBe(410);
    expect(
      (await new SessionClient(app.url).post(`/api/auth/links/use`, { token: link.token, password: MANAGER_PASSWORD }))
        .status,
    ).toBe(200);
  });
});

describe("a disabled partner's people", () => {
  it('are turned away at their next request and cannot sign in until the partner is enabled again', async () => {
    const partnerC = await partner('portal-c');
    const person = await portalSession(app.url, partnerC, 'partner_admin');
    expect((await owner.patch(`/api/affiliates/${partnerC}`, { disabled: true })).status).toBe(200);
    expect((await person.client.get('/portal/api/users')).body).toMatchObject({ error: 'partner_disabled' });
    expect((await person.client.get('/portal/api/users')).status).toBe(401); // that session ended
    const again = new PortalClient(app.url);
    const refused = await again.post('/portal/api/auth/sign-in', { email: person.email, password: PORTAL_PASSWORD });
    expect(refused).toMatchObject({ status: 403, body: { error: 'partner_disabled' } });
    expect(
      await db.collection<AuditDoc>('audit_log').countDocuments({
        partner_id: partnerC,
        action: 'portal.sign_in_failed',
        'details.reason': 'partner_disabled',
      }),
    ).toBe(1);
    expect((await owner.patch(`/api/affiliates/${partnerC}`, { disabled: false })).status).toBe(200);
    const back = await portalSignIn(app.url, person);
    expect((await back.get('/portal/api/users')).status).toBe(200);
  });
});

describe('the audit log', () => {
  it("names the person and the partner of everything a partner's people do, for the partner's manager to see", async () => {
    const entries = await db
      .collection<AuditDoc>('audit_log')
      .find({ partner_id: partnerA, action: { $regex: '^portal\\.' } })
      .toArray();
    const byAction = (action: string) => entries.filter((e) => e.action === action);
    expect(byAction('portal.user.invite').map((e) => e.target)).toEqual(expect.arrayContaining([admin.id, viewer.id]));
    expect(byAction('portal.user.invite').find((e) => e.target === viewer.id)).toMatchObject({
      actor: admin.id,
      actor_name: 'Ada Admin',
    });
    expect(byAction('portal.sign_in').map((e) => e.actor)).toEqual(expect.arrayContaining([admin.id, viewer.id]));
    // The one disable done, and the refused ones (another partner's person, oneself) audited as refusals.
    const [done, ...refused] = [...byAction('portal.user.disable')].sort(
      (x, y) => Number(x.details.refused !== undefined) - Number(y.details.refused !== undefined),
    );
    expect(done).toMatchObject({ actor: admin.id, actor_name: 'Ada Admin', target: viewer.id });
    expect(refused.map((e) => e.details.refused).sort()).toEqual(['conflict', 'not_found']);
    expect(byAction('portal.password_set').length).toBeGreaterThanOrEqual(2);
    expect(byAction('portal.sign_in_failed')).toEqual([
      expect.objectContaining({ target: viewer.id, details: { reason: 'disabled' } }),
    ]);

    const seen = await managerOfA.get<{ items: { action: string; actor_name: string; affiliate_id: string }[] }>(
      `/api/audit-log?affiliate_id=${partnerA}&limit=200`,
    );
    expect(seen.body.items.map((e) => e.action)).toEqual(
      expect.arrayContaining(['portal.user.invite', 'portal.sign_in', 'portal.user.disable', 'portal.sign_out']),
    );
    expect(seen.body.items.every((e) => e.affiliate_id === partnerA)).toBe(true);
    // The other partner's people are not the manager of A's to see.
    expect(
      (await managerOfA.get<{ items: unknown[] }>(`/api/audit-log?affiliate_id=${partnerB}`)).body.items ?? [],
    ).toEqual([]);
  });
});

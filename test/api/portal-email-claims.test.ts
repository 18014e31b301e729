import type { Db } from 'mongodb';
import type { AuditDoc } from '../../src/shared/mongo/documents';
import { totpCode } from '../../src/identity/totp';
import { ManagerClient } from '../support/manager-client';
import {
  enrolPortal,
  PORTAL_PASSWORD,
  PortalClient,
  portalSession,
  portalSignIn,
  type PortalInvitation,
  type PortalPerson,
} from '../support/portal-client';
import { enrol, expectStatus, invite } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// A portal email is no oracle: a partner inviting an address another partner's person holds gets the
// answer a fresh address gets, a sign-in with the email reaches the account its password opens (each
// partner's own, never the other's), and a manager frees an email claimed by the wrong partner.
let app: TestApp;
let db: Db;
let owner: ManagerClient;
let adminA: PortalPerson;
let adminB: PortalPerson;

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@partner-b.example`;

async function partner(name: string): Promise<string> {
  const res = await owner.post<{ id: string }>('/api/affiliates', { name, callback_url: `http://127.0.0.1:9/${name}` });
  if (res.status !== 201) throw new Error(`partner: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

const inviteAs = async (admin: PortalPerson, address: string, role = 'partner_viewer') =>
  (
    await expectStatus(
      admin.client.post<PortalInvitation>('/portal/api/users', { email: address, name: 'Bob', role }),
      201,
    )
  ).body;

// What an invitation tells its maker, with what differs between any two (ids, tokens, times) left out.
const shape = (invited: PortalInvitation) => ({
  user: { ...invited.user, id: typeof invited.user.id, email: null, created_at: null },
  link: Object.keys(invited.link).sort(),
});

const partnerOfSession = async (client: PortalClient) =>
  (await client.get<{ account: { partner_id: string } }>('/portal/api/session')).body.account.partner_id;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  db = app.runtime.mongo.db;
  owner = new ManagerClient(app.url);
  adminA = await portalSession(app.url, await partner('claims-a'));
  adminB = await portalSession(app.url, await partner('claims-b'));
});

afterAll(async () => {
  await app?.destroy();
});

describe('a portal email held by another partner', () => {
  it('is invited with the answer a fresh email gets, and listed and peeked alike', async () => {
    const held = email('bob');
    await enrolPortal(app.url, await inviteAs(adminB, held));
    const taken = await inviteAs(adminA, held);
    const fresh = await inviteAs(adminA, email('fresh'));
    expect(shape(taken)).toEqual(shape(fresh));
    expect(taken.user).toMatchObject({ email: held, partner_id: adminA.partnerId, status: 'invited' });
    const listed = (await adminA.client.get<{ items: { id: string; status: string }[] }>('/portal/api/users')).body;
    expect(listed.items.filter((u) => [taken.user.id, fresh.user.id].includes(u.id)).map((u) => u.status)).toEqual([
      'invited',
      'invited',
    ]);
    const peek = async (invited: PortalInvitation) => {
      const res = await new PortalClient(app.url).post<Record<string, unknown>>('/portal/api/auth/links/peek', {
        token: invited.link.token,
      });
      return { status: res.status, keys: Object.keys(res.body).sort(), kind: res.body.kind, role: res.body.role };
    };
    expect(await peek(taken)).toEqual(await peek(fresh));
    // Inviting it again is no different either: an invited account of the partner gets a new link.
    expect(shape(await inviteAs(adminA, held))).toEqual(shape(await inviteAs(adminA, fresh.user.email)));
  });

  it('signs in to the account holding it and never into the other partner, with the same password', async () => {
    const held = email('carol');
    const holder = await enrolPortal(app.url, await inviteAs(adminB, held, 'partner_admin'));
    const other = await enrolPortal(app.url, await inviteAs(adminA, held, 'partner_admin'));
    // The link's own session is the invited account's, at its partner.
    expect(await partnerOfSession(other.client)).toBe(adminA.partnerId);
    const signedIn = await portalSignIn(app.url, holder);
    expect(await partnerOfSession(signedIn)).toBe(adminB.partnerId);
    // The other account's second factor does not open the holder's account.
    const client = new PortalClient(app.url);
    await expectStatus(client.post('/portal/api/auth/sign-in', { email: held, password: PORTAL_PASSWORD }), 200);
    const code = totpCode(other.secret, Date.now() + 60_000);
    expect((await client.post('/portal/api/auth/totp', { code })).body).toMatchObject({
      error: 'second_factor_invalid',
    });
    const users = (await signedIn.get<{ items: { partner_id: string }[] }>('/portal/api/users')).body.items;
    expect(new Set(users.map((u) => u.partner_id))).toEqual(new Set([adminB.partnerId]));
  });
});

describe('an email people of two partners use', () => {
  it('signs each in to their own partner with their own password, and neither password into the other', async () => {
    const held = email('erin');
    const bob = await enrolPortal(app.url, await inviteAs(adminB, held, 'partner_admin'), 'partner b own passphrase');
    // A completes its own invitation of the address and signs in with it, as if B held nothing.
    const mine = await enrolPortal(app.url, await inviteAs(adminA, held, 'partner_admin'), 'partner a own passphrase');
    const asA = await portalSignIn(app.url, mine);
    expect(await partnerOfSession(asA)).toBe(adminA.partnerId);
    const seen = (await asA.get<{ items: { partner_id: string }[] }>('/portal/api/users')).body.items;
    expect(new Set(seen.map((u) => u.partner_id))).toEqual(new Set([adminA.partnerId]));
    const asB = await portalSignIn(app.url, bob);
    expect(await partnerOfSession(asB)).toBe(adminB.partnerId);
    // A password's pending sign-in is its own account's: the other's second factor opens nothing.
    for (const [password, other] of [
      [mine.password, bob],
      [bob.password, mine],
    ] as const) {
      const client = new PortalClient(app.url);
      await expectStatus(client.post('/portal/api/auth/sign-in', { email: held, password }), 200);
      const code = totpCode(other.secret, Date.now() + 60_000);
      expect((await client.post('/portal/api/auth/totp', { code })).body).toMatchObject({
        error: 'second_factor_invalid',
      });
    }
    const signIn = (address: string) =>
      new PortalClient(app.url).post('/portal/api/auth/sign-in', {
        email: address,
        password: 'neither partner phrase',
      });
    const [wrong, nobody] = [await signIn(held), await signIn(email('nobody'))];
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(nobody.body);
    // The accounts with an email are read by an index, not a scan of every account.
    expect(await db.collection('accounts').indexExists('email_created_at')).toBe(true);
  });
});

describe('freeing a portal email', () => {
  it('lets the partner that meant it sign its person in, audited, and only for who manages accounts', async () => {
    const held = email('dave');
    const squatted = await inviteAs(adminA, held); // A claims B's address first
    const bob = await enrolPortal(app.url, await inviteAs(adminB, held));
    // B's person signs in with their own password whoever claimed the email (their second factor below).
    await expectStatus(
      new PortalClient(app.url).post('/portal/api/auth/sign-in', { email: held, password: bob.password }),
      200,
    );

    const affiliateManager = (
      await enrol(
        app.url,
        await invite(app.url, { email: email('am'), role: 'affiliate_manager', partner_ids: [adminA.partnerId] }),
        'correct horse battery staple',
      )
    ).client;
    expect((await affiliateManager.post('/api/portal-emails/free', { email: held })).status).toBe(403);

    const freed = await owner.post<{ released_from: { id: string; status: string }; signs_in_to: { id: string } }>(
      '/api/portal-emails/free',
      { email: held },
    );
    expect(freed.status).toBe(200);
    expect(freed.body.released_from).toMatchObject({ id: squatted.user.id, status: 'disabled' });
    expect(freed.body.signs_in_to).toMatchObject({ id: bob.id, partner_id: adminB.partnerId });
    expect(await partnerOfSession(await portalSignIn(app.url, bob))).toBe(adminB.partnerId);
    const entry = await db
      .collection<AuditDoc>('audit_log')
      .findOne({ action: 'portal.email.free', target: squatted.user.id });
    expect(entry).toMatchObject({
      partner_id: adminA.partnerId,
      details: { to: bob.id, to_partner: adminB.partnerId },
    });
    // An email no portal account signs in with: nothing to free.
    expect((await owner.post('/api/portal-emails/free', { email: email('nobody') })).status).toBe(404);
  });
});

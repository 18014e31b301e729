import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { totpCode } from '../../src/identity/totp';
import { identityCollections, type IdentityCollections } from '../../src/identity/identity-store';
import type { AuditDoc } from '../../src/shared/mongo/documents';
import { createRedis, type Redis } from '../../src/shared/redis/client';
import { ManagerClient } from '../support/manager-client';
import { enrol, invite, SessionClient } from '../support/session-client';
import { signInAttempt } from '../support/sign-in-attempt';
import { startTestApp, type TestApp } from '../support/test-app';

// People's accounts through the API as the console uses it: invitations, the password and TOTP
// steps, sessions in Redis (revocable, idle and absolute timeouts, CSRF), throttling, service
// accounts, and an audit log that names people.
let app: TestApp;
let db: Db;
let ids: IdentityCollections;
let redis: Redis;
let owner: ManagerClient;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  db = app.runtime.mongo.db;
  ids = identityCollections(db);
  redis = createRedis(app.config, 'test');
  owner = new ManagerClient(app.url);
});

afterAll(async () => {
  redis?.disconnect();
  await app?.destroy();
});

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
// A code of the next time step: the step the set-up used is spent.
const nextCode = (secret: string) => totpCode(secret, Date.now() + 30_000);
// Another session of an enrolled account (the steps its TOTP used are forgotten, so a code works).
async function signInAgain(invited: { id: string; email: string }, secret: string): Promise<SessionClient> {
  await ids.accounts.updateOne({ _id: invited.id }, { $set: { 'totp.last_step': null } });
  const client = new SessionClient(app.url);
  await client.post('/api/auth/sign-in', { email: invited.email, password: PASSWORD });
  await client.post('/api/auth/totp', { code: nextCode(secret) });
  return client;
}
async function auditOf(target: string): Promise<AuditDoc[]> {
  return db.collection<AuditDoc>('audit_log').find({ target }).toArray();
}

describe('an invitation', () => {
  it('sets a password and a second factor through a one-time link, then signs in, with a new session id at each step', async () => {
    const invited = await invite(app.url, { email: email('ann'), role: 'admin' });
    const client = new SessionClient(app.url);
    expect((await client.get('/api/auth/methods')).body).toEqual({ sso: false });
    expect((await client.get('/api/auth/sso')).status).toBe(404);
    const peek = await client.post(`/api/auth/links/peek`, { token: invited.token });
    expect(peek.body).toMatchObject({ kind: 'invitation', email: invited.email, role: 'admin' });

    expect((await client.post(`/api/auth/links/use`, { token: invited.token, password: 'too short' })).status).toBe(
      422,
    );
    const set = await client.post(`/api/auth/links/use`, { token: invited.token, password: PASSWORD });
    expect(set.body).toMatchObject({ stage: 'enroll', account: null });
    const enrolCookie = client.cookie;
    expect((await client.get('/api/affiliates')).status).toBe(401); // not signed in before a second factor

    const setup = await client.post<{ secret: string; uri: string }>('/api/auth/totp/setup');
    expect(setup.body.uri).toMatch(/^otpauth:\/\/totp\//);
    const done = await client.post('/api/auth/totp/confirm', { code: totpCode(setup.body.secret, Date.now()) });
    expect(done.body).toMatchObject({ stage: 'signed_in', account: { id: invited.id, role: 'admin' } });
    expect(client.cookie).not.toBe(enrolCookie);
    expect((await client.get('/api/affiliates')).status).toBe(200);
    // The link worked once.
    expect(
      (await new SessionClient(app.url).post(`/api/auth/links/use`, { token: invited.token, password: PASSWORD })).body,
    ).toMatchObject({ error: 'link_invalid' });
    expect((await auditOf(invited.id)).map((e) => e.action)).toEqual(
      expect.arrayContaining([
        'account.invite',
        'account.password_set',
        'account.second_factor_added',
        'account.sign_in',
      ]),
    );
  });

  it('answers 410 link_invalid for an unknown or an expired link', async () => {
    const invited = await invite(app.url, { email: email('exp'), role: 'analyst' });
    const digest = createHash('sha256').update(`account-link:${invited.token}`).digest('hex');
    await ids.links.updateOne({ _id: digest }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    for (const token of [invited.token, 'inv_unknown']) {
      expect(
        (await new SessionClient(app.url).post(`/api/auth/links/use`, { token: token, password: PASSWORD })).body,
      ).toMatchObject({ error: 'link_invalid' });
      expect((await new SessionClient(app.url).post(`/api/auth/links/peek`, { token: token })).status).toBe(410);
    }
  });
});

describe('signing in', () => {
  it('takes the password, then a TOTP code once: a replayed code is refused', async () => {
    const invited = await invite(app.url, { email: email('tom'), role: 'support' });
    const { secret } = await enrol(app.url, invited);
    const client = new SessionClient(app.url);
    const first = await client.post('/api/auth/sign-in', { email: invited.email.toUpperCase(), password: PASSWORD });
    expect(first.body).toMatchObject({ stage: 'second_factor', second_factors: { totp: true, passkey: false } });
    const code = nextCode(secret);
    expect((await client.post('/api/auth/totp', { code })).body).toMatchObject({
      stage: 'signed_in',
      account: { role: 'support' },
    });
    const again = new SessionClient(app.url);
    await again.post('/api/auth/sign-in', { email: invited.email, password: PASSWORD });
    expect((await again.post('/api/auth/totp', { code })).body).toMatchObject({ error: 'second_factor_invalid' });
  });

  it('answers a wrong password and an unknown email alike, after like work', async () => {
    const invited = await invite(app.url, { email: email('eve'), role: 'analyst' });
    await enrol(app.url, invited);
    const time = async (body: unknown) => {
      const started = process.hrtime.bigint();
      const res = await new SessionClient(app.url).post('/api/auth/sign-in', body);
      return { res, ms: Number(process.hrtime.bigint() - started) / 1e6 };
    };
    const wrong = await time({ email: invited.email, password: 'not the password at all' });
    const unknown = await time({ email: email('nobody'), password: 'not the password at all' });
    expect(wrong.res.status).toBe(401);
    expect(unknown.res.body).toEqual(wrong.res.body);
    // Both verify an argon2id hash: neither answers in a fraction of the other's time.
    expect(unknown.ms).toBeGreaterThan(wrong.ms / 4);
    expect(wrong.ms).toBeGreaterThan(unknown.ms / 4);
  });

  it('locks an account after five failures, even for the right password, and audits the lock', async () => {
    const invited = await invite(app.url, { email: email('lock'), role: 'analyst' });
    await enrol(app.url, invited);
    for (let i = 0; i < 5; i += 1) {
      expect((await signInAttempt(app.url, invited.email, `wrong password ${i}`)).status).toBe(401);
    }
    const locked = await signInAttempt(app.url, invited.email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error: 'sign_in_throttled' });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await auditOf(invited.id)).map((e) => e.action)).toContain('account.locked');
    // An email that names no account locks the same way, so a lock tells nobody which emails exist.
    const nobody = email('ghost');
    for (let i = 0; i < 5; i += 1) await signInAttempt(app.url, nobody, `wrong password ${i}`);
    expect((await signInAttempt(app.url, nobody, PASSWORD)).status).toBe(429);
  });
});

describe('a session', () => {
  it('survives a reload, needs the CSRF token to change anything, and refuses a forged cookie', async () => {
    const { client } = await enrol(app.url, await invite(app.url, { email: email('csrf'), role: 'admin' }));
    expect((await client.get('/api/session')).body).toMatchObject({ stage: 'signed_in' });
    const token = client.csrf;
    client.csrf = null;
    expect((await client.post('/api/agents', { name: 'No token' })).body).toMatchObject({ error: 'csrf_invalid' });
    client.csrf = 'forged';
    expect((await client.post('/api/agents', { name: 'Forged token' })).status).toBe(403);
    client.csrf = token;
    expect((await client.post('/api/agents', { name: 'With the token' })).status).toBe(201);

    const forged = new SessionClient(app.url);
    forged.cookie = `lit_session=${client.cookie!.split('=')[1]!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`;
    expect((await forged.get('/api/affiliates')).body).toMatchObject({ error: 'manager_unauthorized' });
    forged.cookie = 'lit_session=%%%not-a-cookie';
    expect((await forged.get('/api/affiliates')).status).toBe(401);
  });

  it('keeps an idle timeout in Redis and ends at the absolute timeout', async () => {
    const { client } = await enrol(app.url, await invite(app.url, { email: email('idle'), role: 'analyst' }));
    const sid = decodeURIComponent(client.cookie!.split('=')[1]!).split('.')[0]!;
    const ttl = await redis.pttl(`sess:${sid}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(app.config.accounts.idleTimeoutS * 1000);
    // Issued longer ago than the absolute timeout: the next request ends it.
    const stored = JSON.parse((await redis.get(`sess:${sid}`))!) as { issued_at: number };
    stored.issued_at -= app.config.accounts.absoluteTimeoutS * 1000;
    await redis.set(`sess:${sid}`, JSON.stringify(stored), 'PX', 60_000);
    expect((await client.get('/api/leads')).body).toMatchObject({ error: 'session_expired' });
    expect(await redis.exists(`sess:${sid}`)).toBe(0);
  });

  it("ends every session of an account that is disabled or whose role changes, and keeps the changer's", async () => {
    const invited = await invite(app.url, { email: email('dis'), role: 'support' });
    const { client, secret } = await enrol(app.url, invited);
    const second = await signInAgain(invited, secret);
    expect((await second.get('/api/deliveries')).status).toBe(200);

    expect((await owner.patch(`/api/accounts/${invited.id}`, { role: 'analyst' })).body).toMatchObject({
      role: 'analyst',
    });
    expect((await client.get('/api/deliveries')).status).toBe(401);
    expect((await second.get('/api/deliveries')).status).toBe(401);

    // A live session of the account when it is disabled ends with it.
    const live = await signInAgain(invited, secret);
    expect((await live.get('/api/leads')).status).toBe(200);
    expect((await owner.patch(`/api/accounts/${invited.id}`, { status: 'disabled' })).body).toMatchObject({
      status: 'disabled',
    });
    expect((await live.get('/api/leads')).body).toMatchObject({ error: 'manager_unauthorized' });
    const audit = await auditOf(invited.id);
    expect(audit.find((e) => e.action === 'account.update' && 'role' in e.details)?.details).toEqual({
      role: { from: 'support', to: 'analyst' },
    });
    const again = await signInAttempt(app.url, invited.email, PASSWORD);
    expect(again.body).toMatchObject({ error: 'account_disabled' });
  });

  it('a new password ends the other sessions and gives this one a new id', async () => {
    const invited = await invite(app.url, { email: email('pw'), role: 'analyst' });
    const { client, secret } = await enrol(app.url, invited);
    const other = await signInAgain(invited, secret);
    const before = client.cookie;
    const changed = await client.post('/api/me/password', {
      current_password: PASSWORD,
      new_password: 'another long passphrase',
    });
    expect(changed.body).toMatchObject({ stage: 'signed_in' });
    expect(client.cookie).not.toBe(before);
    expect((await client.get('/api/leads')).status).toBe(200);
    expect((await other.get('/api/leads')).status).toBe(401);
  });

  it('signs out, and signs out everywhere', async () => {
    const { client } = await enrol(app.url, await invite(app.url, { email: email('out'), role: 'analyst' }));
    expect((await client.post('/api/auth/sign-out')).status).toBe(204);
    expect((await client.get('/api/leads')).status).toBe(401);
    const { client: again } = await enrol(app.url, await invite(app.url, { email: email('every'), role: 'analyst' }));
    expect((await again.post('/api/me/sign-out-everywhere')).status).toBe(204);
    expect((await again.get('/api/leads')).status).toBe(401);
  });
});

describe('roles over accounts', () => {
  it('lets an admin invite below admin only, and refuses an unknown role', async () => {
    const { client: admin } = await enrol(app.url, await invite(app.url, { email: email('adm'), role: 'admin' }));
    expect((await admin.post('/api/accounts', { email: email('o'), name: 'O', role: 'owner' })).body).toMatchObject({
      error: 'forbidden',
    });
    expect((await admin.post('/api/accounts', { email: email('a'), name: 'A', role: 'admin' })).status).toBe(403);
    expect((await admin.post('/api/accounts', { email: email('s'), name: 'S', role: 'support' })).status).toBe(201);
    expect((await admin.post('/api/accounts', { email: email('x'), name: 'X', role: 'emperor' })).body).toMatchObject({
      error: 'invalid_request',
    });
    const taken = email('dup');
    await invite(app.url, { email: taken, role: 'analyst' });
    expect(
      (await admin.post('/api/accounts', { email: taken.toUpperCase(), name: 'Dup', role: 'analyst' })).body,
    ).toMatchObject({ error: 'conflict' });
  });

  it('names the person, the sign-in method and the address in every audit entry of their actions', async () => {
    const invited = await invite(app.url, { email: email('aud'), name: 'Audrey Auditable', role: 'admin' });
    const { client } = await enrol(app.url, invited);
    const agent = await client.post<{ id: string }>('/api/agents', { name: 'Audited' });
    const [entry] = await auditOf(agent.body.id);
    expect(entry).toMatchObject({
      actor: invited.id,
      actor_name: 'Audrey Auditable',
      auth_method: 'password',
      client_address: '127.0.0.1',
      action: 'agent.create',
    });
  });
});

describe('service accounts', () => {
  it('shows a prefixed token once, stores only its digest, records its use, and stops it when revoked or expired', async () => {
    const made = await owner.post<{ id: string; token: string; prefix: string }>('/api/service-accounts', {
      name: 'CLI',
      role: 'support',
      expires_in_days: 30,
    });
    expect(made.status).toBe(201);
    expect(made.body.token).toMatch(/^lit_/);
    expect(made.body.token.startsWith(made.body.prefix)).toBe(true);
    expect(JSON.stringify(await ids.serviceTokens.find().toArray())).not.toContain(made.body.token);
    const cli = owner.withToken(made.body.token);
    expect((await cli.get('/api/deliveries')).status).toBe(200);
    expect((await cli.post('/api/agents', { name: 'Not support' })).body).toMatchObject({ error: 'forbidden' });
    const listed = await owner.get<{ items: { id: string; last_used_at: string | null }[] }>('/api/service-accounts');
    expect(listed.body.items.find((t) => t.id === made.body.id)?.last_used_at).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);

    expect((await owner.send('DELETE', `/api/service-accounts/${made.body.id}`)).status).toBe(200);
    expect((await cli.get('/api/deliveries')).status).toBe(401);

    const old = await owner.post<{ id: string; token: string }>('/api/service-accounts', {
      name: 'Old',
      role: 'analyst',
      expires_in_days: 1,
    });
    await ids.serviceTokens.updateOne({ id: old.body.id }, { $set: { expires_at: new Date(Date.now() - 1) } });
    expect((await owner.withToken(old.body.token).get('/api/leads')).status).toBe(401);
  });
});

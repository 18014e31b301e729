import { totpCode } from '../../src/identity/totp';
import { forgedPasskey } from '../support/forged-passkey';
import type { HttpResult } from '../support/partner-client';
import { enrolPortal, inviteFirstAdmin, PortalClient } from '../support/portal-client';
import { ManagerClient } from '../support/manager-client';
import { enrol, invite, SessionClient } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// The sign-in throttle through the API, each client at an address of its own (a trusted proxy names
// it): every step checks the locks before it verifies anything, the realms count apart, and an
// attacker's failures neither unlock an account nor lock its owner out of a browser they signed in on.
let app: TestApp;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress', TRUSTED_PROXIES: '127.0.0.1' });
});
afterAll(async () => {
  await app?.destroy();
});

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const code = (secret: string) => totpCode(secret, Date.now() + 30_000);
// A code that is not the account's (the right one, one digit moved).
const wrong = (secret: string) => code(secret).replace(/^./, (d) => String((Number(d) + 1) % 10));
const from = (address: string, client = new SessionClient(app.url)) => Object.assign(client, { from: address });
const password = (client: SessionClient, who: string, pass = PASSWORD) =>
  client.post('/api/auth/sign-in', { email: who, password: pass });
const error = (res: HttpResult) => (res.body as { error?: string }).error ?? res.status;

async function enrolled(name: string) {
  const invited = await invite(app.url, { email: email(name), role: 'analyst' });
  return { ...invited, ...(await enrol(app.url, invited, PASSWORD)) };
}

describe('the second factor', () => {
  it('checks the lock before it verifies a code or a passkey, and a pending sign-in takes three tries', async () => {
    const { email: who, secret } = await enrolled('guess');
    const address = '198.51.100.1';
    const pending = from(address);
    expect((await password(pending, who)).body).toMatchObject({ stage: 'second_factor' });

    const guesser = from(address);
    await password(guesser, who);
    for (let i = 0; i < 3; i += 1)
      expect(error(await guesser.post('/api/auth/totp', { code: wrong(secret) }))).toBe('second_factor_invalid');
    // Three wrong codes void the pending sign-in: it starts again from the password.
    expect(error(await guesser.post('/api/auth/totp', { code: code(secret) }))).toBe('sign_in_step_missing');

    expect((await password(guesser, who)).body).toMatchObject({ stage: 'second_factor' });
    for (let i = 0; i < 2; i += 1) await guesser.post('/api/auth/totp', { code: wrong(secret) });
    // Five failures from this address: the right code is refused unchecked, at every step.
    const locked = await pending.post('/api/auth/totp', { code: code(secret) });
    expect(locked.status).toBe(429);
    expect(error(locked)).toBe('sign_in_throttled');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await pending.post('/api/auth/passkey/options')).status).toBe(200);
    expect(error(await pending.post('/api/auth/passkey', { response: forgedPasskey }))).toBe('sign_in_throttled');
    expect(error(await password(from(address), who))).toBe('sign_in_throttled');
  });

  it('clears no counter at a right password: only a completed sign-in does', async () => {
    const { email: who, secret } = await enrolled('clear');
    const address = '198.51.100.2';
    for (let i = 0; i < 4; i += 1)
      expect(error(await password(from(address), who, `wrong ${i}`))).toBe('invalid_credentials');
    expect((await password(from(address), who)).body).toMatchObject({ stage: 'second_factor' });
    expect(error(await password(from(address), who, 'wrong again'))).toBe('invalid_credentials');
    expect(error(await password(from(address), who))).toBe('sign_in_throttled');

    // A completed sign-in from an address clears its failures there.
    const other = await enrolled('cleared');
    const elsewhere = '198.51.100.3';
    for (let i = 0; i < 4; i += 1) await password(from(elsewhere), other.email, `wrong ${i}`);
    const browser = from(elsewhere);
    await password(browser, other.email);
    expect((await browser.post('/api/auth/totp', { code: code(other.secret) })).body).toMatchObject({
      stage: 'signed_in',
    });
    expect(error(await password(from(elsewhere), other.email, 'wrong again'))).toBe('invalid_credentials');
    expect((await password(from(elsewhere), other.email)).body).toMatchObject({ stage: 'second_factor' });
    expect(secret).not.toBe(other.secret);
  });
});

describe('the realms', () => {
  it("count apart: a portal account's failures with a manager's email leave the manager's sign-in alone", async () => {
    const manager = await enrolled('both');
    const partner = await new ManagerClient(app.url).post<{ id: string }>('/api/affiliates', {
      name: 'throttle-realms',
      callback_url: 'http://127.0.0.1:9/realms',
    });
    const portal = await enrolPortal(
      app.url,
      await inviteFirstAdmin(app.url, partner.body.id, { email: manager.email }),
    );
    const address = '198.51.100.4';
    const portalTry = (pass: string) =>
      from(address, new PortalClient(app.url)).post('/portal/api/auth/sign-in', {
        email: portal.email,
        password: pass,
      });
    for (let i = 0; i < 5; i += 1) expect(error(await portalTry(`wrong ${i}`))).toBe('invalid_credentials');
    expect(error(await portalTry(portal.password))).toBe('sign_in_throttled');
    expect((await password(from(address), manager.email)).body).toMatchObject({ stage: 'second_factor' });
  });
});

describe('a lockout', () => {
  it("locks an attacker's addresses, slows strangers, and lets the owner's known browser in", async () => {
    const victim = await enrolled('victim');
    const attackers = ['203.0.113.1', '203.0.113.2'];
    for (const address of attackers)
      for (let i = 0; i < 6; i += 1) await password(from(address), victim.email, `guess ${address} ${i}`);
    for (const address of attackers)
      expect(error(await password(from(address), victim.email))).toBe('sign_in_throttled');

    // Ten failures for the account: browsers it does not know take turns, one attempt a second.
    const strangers = [from('198.51.100.5'), from('198.51.100.6')];
    const first = await Promise.all(strangers.map((c) => password(c, victim.email)));
    expect(first.map((r) => error(r)).sort()).toEqual([200, 'sign_in_throttled']);
    const slowed = first.find((r) => r.status === 429)!;
    const wait = Number(slowed.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 100));
    const turn = strangers[first.indexOf(slowed)]!;
    expect((await password(turn, victim.email)).body).toMatchObject({ stage: 'second_factor' });

    // The owner's browser signed in before (the enrolment set its device cookie): no wait, at any address.
    const known = from(attackers[0]!);
    for (const [name, value] of victim.client.jar) known.jar.set(name, value);
    expect(known.jar.size).toBe(1);
    expect((await password(known, victim.email)).body).toMatchObject({ stage: 'second_factor' });
    expect((await known.post('/api/auth/totp', { code: code(victim.secret) })).body).toMatchObject({
      stage: 'signed_in',
    });
    // A forged device cookie is no device (at the other address: the known browser's sign-in cleared its own).
    const forged = from(attackers[1]!);
    for (const [name, value] of victim.client.jar)
      forged.jar.set(name, { ...value, value: value.value.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) });
    expect(error(await password(forged, victim.email))).toBe('sign_in_throttled');
  });
});

describe('racing attempts', () => {
  it('verify no more codes at once than the limit lets through one by one', async () => {
    const { email: who, secret } = await enrolled('race');
    const address = '198.51.100.8';
    const pending: SessionClient[] = [];
    for (let i = 0; i < 12; i += 1) {
      const client = from(address);
      expect((await password(client, who)).body).toMatchObject({ stage: 'second_factor' });
      pending.push(client);
    }
    const answers = await Promise.all(pending.map((c) => c.post('/api/auth/totp', { code: wrong(secret) })));
    const verified = answers.filter((a) => error(a) === 'second_factor_invalid').length;
    expect(verified).toBeLessThanOrEqual(5);
    expect(answers.filter((a) => error(a) === 'sign_in_throttled')).toHaveLength(12 - verified);
  });

  it("take turns in an account's slow-down: one stranger's attempt per delay, however many race", async () => {
    const victim = await enrolled('turns');
    for (const address of ['203.0.113.11', '203.0.113.12'])
      for (let i = 0; i < 5; i += 1) await password(from(address), victim.email, `guess ${address} ${i}`);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const strangers = Array.from({ length: 6 }, (_, i) => from(`198.51.100.${20 + i}`));
    const answers = await Promise.all(strangers.map((c) => password(c, victim.email, 'a racing guess')));
    expect(answers.filter((a) => error(a) === 'invalid_credentials')).toHaveLength(1);
    expect(answers.filter((a) => error(a) === 'sign_in_throttled')).toHaveLength(5);
  });
});

describe('a one-time link', () => {
  it('is held back as every step is: refused, unused, while its account is locked from that network', async () => {
    const { id, email: who } = await enrolled('link');
    const address = '198.51.100.9';
    for (let i = 0; i < 5; i += 1) await password(from(address), who, `wrong ${i}`);
    const link = await new ManagerClient(app.url).post<{ token: string }>(`/api/accounts/${id}/link`);
    const use = (client: SessionClient) =>
      client.post('/api/auth/links/use', { token: link.body.token, password: `${PASSWORD} anew` });
    const refused = await use(from(address));
    expect(error(refused)).toBe('sign_in_throttled');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The link is still whole: from another network it sets the password.
    expect((await use(from('198.51.100.10'))).body).toMatchObject({ stage: 'second_factor' });
  });
});

import { totpCode } from '../../src/identity/totp';
import { identityCollections } from '../../src/identity/identity-store';
import { linkIn, mailbox, mailEnv, mailTo, waitForMail, type DeliveredMail } from '../support/mailpit';
import { ManagerClient } from '../support/manager-client';
import { enrol, expectStatus, SessionClient, type Invited } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// What people get by mail, read back from Mailpit: the real relay the outbox sends through.
let app: TestApp;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  // The test's client address comes from X-Forwarded-For, so one test signs in from several networks.
  app = await startTestApp(mailEnv({ ROLE: 'ingress', TRUSTED_PROXIES: '127.0.0.1' }));
});

afterAll(async () => {
  await app?.destroy();
});

const settled = () => new Promise((r) => setTimeout(r, 1000));
const tokenIn = (mail: DeliveredMail | undefined): string =>
  linkIn(mail as DeliveredMail).split('#/link/')[1] as string;
const manager = () => new ManagerClient(app.url);

// An account invited with the break-glass token (not an owner: the link goes by mail), and its mail.
async function inviteByMail(role: string): Promise<Invited & { mail: DeliveredMail }> {
  const to = mailbox(role);
  const res = await manager().post<{ account: { id: string }; invitation: unknown }>('/api/accounts', {
    email: to,
    name: 'Pat',
    role,
  });
  expect(res.status).toBe(201);
  expect(res.body.invitation).toEqual({
    mailed_to: to,
    mail_id: expect.stringMatching(/^ml-/),
    expires_at: expect.any(String),
  });
  const [mail] = await waitForMail(to);
  return { id: res.body.account.id, email: to, token: tokenIn(mail), mail: mail as DeliveredMail };
}

describe('one-time links by mail', () => {
  it('mails an invitation, never shows its link, and the mailed link sets the account up', async () => {
    const invited = await inviteByMail('analyst');
    expect(invited.mail.Subject).toBe('You are invited to the LeadIntake console');
    expect(linkIn(invited.mail)).toMatch(/^https:\/\/leads\.example\/console\/#\/link\/inv_[\w-]{43}$/);
    await enrol(app.url, invited);
    const me = await manager().get<{ status: string }>(`/api/accounts/${invited.id}`);
    expect(me.body.status).toBe('active');
  });

  it("keeps the link in the break-glass token's answer when it sets up an owner, and mails nothing", async () => {
    const to = mailbox('owner');
    const res = await manager().post<{ invitation: { token: string; url: string } }>('/api/accounts', {
      email: to,
      name: 'Owner',
      role: 'owner',
    });
    expect(res.status).toBe(201);
    expect(res.body.invitation.url).toBe(`https://leads.example/console/#/link/${res.body.invitation.token}`);
    await settled();
    expect(await mailTo(to)).toEqual([]);
  });

  it('mails a password reset; its link sets a new password, the old one stops working', async () => {
    const invited = await inviteByMail('support');
    await enrol(app.url, invited, PASSWORD);
    const made = await manager().post(`/api/accounts/${invited.id}/link`);
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      kind: 'password_reset',
      mailed_to: invited.email,
      mail_id: expect.stringMatching(/^ml-/),
      expires_at: expect.any(String),
    });
    const [, reset] = await waitForMail(invited.email, 2);
    expect(reset?.Subject).toBe('Set a new LeadIntake password');
    const fresh = 'a new and longer passphrase here';
    await expectStatus(
      new SessionClient(app.url).post('/api/auth/links/use', { token: tokenIn(reset), password: fresh }),
      200,
    );
    const again = new SessionClient(app.url);
    expect((await again.post('/api/auth/sign-in', { email: invited.email, password: PASSWORD })).status).toBe(401);
    expect((await again.post('/api/auth/sign-in', { email: invited.email, password: fresh })).status).toBe(200);
  });

  it("mails a partner's portal invitation with a link to the portal, which sets the account up", async () => {
    const partner = await manager().post<{ id: string }>('/api/affiliates', { name: 'Mail partner' });
    const to = mailbox('portal');
    const res = await manager().post(`/api/affiliates/${partner.body.id}/portal-invitations`, {
      email: to,
      name: 'Sam',
    });
    expect(res.status).toBe(201);
    expect(res.body.link).toEqual({
      mailed_to: to,
      mail_id: expect.stringMatching(/^ml-/),
      expires_at: expect.any(String),
    });
    const [mail] = await waitForMail(to);
    expect(mail?.Subject).toBe('You are invited to the LeadIntake partner portal');
    expect(linkIn(mail as DeliveredMail)).toMatch(/^https:\/\/leads\.example\/portal\/#\/link\/inv_/);
    const client = new SessionClient(app.url, 'lit_portal');
    await expectStatus(client.post('/portal/api/auth/links/use', { token: tokenIn(mail), password: PASSWORD }), 200);
  });
});

describe('a sign-in from a new network', () => {
  // Password and TOTP from `address` (the step a code used is forgotten, so a code works again).
  async function signInFrom(invited: { id: string; email: string }, secret: string, address: string): Promise<void> {
    await identityCollections(app.runtime.mongo.db).accounts.updateOne(
      { _id: invited.id },
      { $set: { 'totp.last_step': null } },
    );
    const client = new SessionClient(app.url);
    const from = { 'x-forwarded-for': address };
    await expectStatus(
      client.send('POST', '/api/auth/sign-in', { email: invited.email, password: PASSWORD }, from),
      200,
    );
    await expectStatus(client.send('POST', '/api/auth/totp', { code: totpCode(secret, Date.now()) }, from), 200);
  }

  it('mails the account once per new network, never at its first sign-in nor from a network it used', async () => {
    const invited = await inviteByMail('analyst');
    const { secret } = await enrol(app.url, invited);
    await signInFrom(invited, secret, '198.51.100.7');
    const [, notice] = await waitForMail(invited.email, 2);
    expect(notice).toMatchObject({
      Subject: 'A new sign-in to your LeadIntake account',
      From: { Address: 'no-reply@leads.example', Name: 'LeadIntake' },
      ReplyTo: [{ Address: 'support@leads.example' }],
    });
    expect(notice?.Text).toContain('(198.51.100.7)');
    expect(notice?.Text).toContain('https://leads.example/console/');

    await signInFrom(invited, secret, '198.51.100.7');
    // One IPv6 host is given a whole /64: another address in it is the same network.
    await signInFrom(invited, secret, '2001:db8:5:6::1');
    await signInFrom(invited, secret, '2001:db8:5:6::ffff');
    await waitForMail(invited.email, 3);
    await settled();
    const mail = await mailTo(invited.email);
    expect(mail).toHaveLength(3);
    expect(mail[2]?.Text).toContain('(2001:db8:5:6::/64)');
  });
});

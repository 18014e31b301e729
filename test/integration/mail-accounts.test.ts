import { totpCode } from '../../src/manager/identity/totp';
import { identityCollections } from '../../src/manager/identity/identity-store';
import { mailbox, mailEnv, mailTo, waitForMail } from '../support/mailpit';
import { enrol, expectStatus, invite, SessionClient } from '../support/session-client';
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
    const invited = await invite(app.url, { email: mailbox('new-network'), role: 'analyst' });
    const { secret } = await enrol(app.url, invited);
    await signInFrom(invited, secret, '198.51.100.7');
    const [notice] = await waitForMail(invited.email);
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
    await waitForMail(invited.email, 2);
    await settled();
    const mail = await mailTo(invited.email);
    expect(mail).toHaveLength(2);
    expect(mail[1]?.Text).toContain('(2001:db8:5:6::/64)');
  });
});

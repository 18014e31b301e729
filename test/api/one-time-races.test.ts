import { totpCode } from '../../src/identity/totp';
import { enrol, invite, SessionClient } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// A TOTP code and a one-time link each work once even when several requests bring them at the same
// moment: each is spent by a conditional update (accounts.ts useTotpStep, links.ts use), which the
// store makes atomic (test/store/atomic-updates.test.ts). Real requests, raced, several rounds.
let app: TestApp;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
});

afterAll(async () => {
  await app?.destroy();
});

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;

describe('one fresh TOTP code sent by five sign-ins at once', () => {
  it('signs exactly one of them in', async () => {
    for (let round = 0; round < 4; round++) {
      const invited = await invite(app.url, { email: email(`totp${round}`), role: 'support' });
      const { secret } = await enrol(app.url, invited);
      const clients = Array.from({ length: 5 }, () => new SessionClient(app.url));
      for (const client of clients) {
        const res = await client.post('/api/auth/sign-in', { email: invited.email, password: PASSWORD });
        expect(res.body).toMatchObject({ stage: 'second_factor' });
      }
      // The step after the one enrolling spent.
      const code = totpCode(secret, Date.now() + 30_000);
      const answers = await Promise.all(clients.map((client) => client.post('/api/auth/totp', { code })));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status !== 200).map((a) => a.body)).toEqual(
        Array.from({ length: 4 }, () => expect.objectContaining({ error: 'second_factor_invalid' })),
      );
      const sessions = await Promise.all(clients.map((client) => client.get('/api/session')));
      expect(sessions.filter((s) => s.status === 200 && s.body.stage === 'signed_in')).toHaveLength(1);
    }
  }, 120_000);
});

describe('one invitation link used by four requests at once', () => {
  // The requests reach the link a few milliseconds apart: on a store whose updates are not atomic
  // some rounds let two in.
  it('sets the password for exactly one of them', async () => {
    for (let round = 0; round < 25; round++) {
      const invited = await invite(app.url, { email: email(`link${round}`), role: 'support' });
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, n) =>
          new SessionClient(app.url).post('/api/auth/links/use', {
            token: invited.token,
            password: `${PASSWORD} ${n}`,
          }),
        ),
      );
      const used = answers.flatMap((a, n) => (a.status === 200 ? [n] : []));
      expect(used).toHaveLength(1);
      expect(answers.filter((a) => a.status !== 200).map((a) => a.body)).toEqual(
        Array.from({ length: 3 }, () => expect.objectContaining({ error: 'link_invalid' })),
      );
      // The password that took is the winner's.
      const signedIn = await new SessionClient(app.url).post('/api/auth/sign-in', {
        email: invited.email,
        password: `${PASSWORD} ${used[0]}`,
      });
      expect(signedIn.body).toMatchObject({ stage: 'enroll' });
    }
  }, 120_000);
});

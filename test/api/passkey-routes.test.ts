import { forgedPasskey } from '../support/forged-passkey';
import { enrol, invite, SessionClient } from '../support/session-client';
import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';

// The passkey steps' bad input through the API (a browser's passkeys are in console-accounts.test.ts):
// no sign-in under way, no CSRF token, an answer that does not verify.
let app: TestApp;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.destroy();
});

it('refuses the passkey steps without a sign-in under way, or without the CSRF token', async () => {
  const stranger = new SessionClient(app.url);
  expect((await stranger.post('/api/auth/passkey/options')).body).toMatchObject({ error: 'csrf_invalid' });
  const invited = await invite(app.url, { email: 'pk.csrf@example.com', role: 'analyst' });
  const { client } = await enrol(app.url, invited, PASSWORD);
  // Signed in: a passkey's options are for a re-authentication; adding one waits for it.
  expect((await client.post('/api/auth/passkey/options')).status).toBe(200);
  expect((await client.post('/api/auth/passkey/register/options')).body).toMatchObject({
    error: 'reauthentication_required',
  });
  client.csrf = 'forged';
  expect((await client.post('/api/auth/passkey/register/options')).body).toMatchObject({ error: 'csrf_invalid' });
});

it('refuses an answer that does not verify, counts it as a failed sign-in, and the challenge works once', async () => {
  const invited = await invite(app.url, { email: 'pk.forged@example.com', role: 'analyst' });
  await enrol(app.url, invited, PASSWORD);
  const browser = new SessionClient(app.url);
  expect((await browser.post('/api/auth/sign-in', { email: invited.email, password: PASSWORD })).body).toMatchObject({
    stage: 'second_factor',
  });
  const options = await browser.post<{ challenge: string; rpId: string }>('/api/auth/passkey/options');
  expect(options.status).toBe(200);
  expect(options.body.rpId).toBe('127.0.0.1');
  const forged = forgedPasskey;
  const refused = await browser.post('/api/auth/passkey', { response: forged });
  expect(refused).toMatchObject({ status: 401, body: { error: 'second_factor_invalid' } });
  // The challenge went with the first answer: a second needs new options.
  expect((await browser.post('/api/auth/passkey', { response: forged })).body).toMatchObject({
    error: 'sign_in_step_missing',
  });
  const failures = await new ManagerClient(app.url).get<{ items: { target: string; details: { step?: string } }[] }>(
    '/api/audit-log?action=account.sign_in_failed',
  );
  expect(failures.body.items.filter((e) => e.target === invited.id && e.details.step === 'passkey')).toHaveLength(1);
});

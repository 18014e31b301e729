import { Writable } from 'node:stream';
import { startApp, type App } from '../../src/app';
import { createLogger } from '../../src/shared/logger';
import { ManagerClient } from '../support/manager-client';
import { enrol, invite, SessionClient } from '../support/session-client';
import { dropTestData } from '../support/test-app';
import { testConfig } from '../support/test-config';

// One-time links keep their tokens out of every log line (the token travels in the body, and link paths and the
// SSO callback's code and state are redacted where fastify logs a request), and a link used, or a password set,
// ends the account's other links.
const config = testConfig({ ROLE: 'ingress' });
const logged: string[] = [];
let app: App;
let owner: ManagerClient;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  app = await startApp(config, createLogger('info', 'link-tokens', sink));
  owner = new ManagerClient(app.url);
});

afterAll(async () => {
  await app?.stop();
  await dropTestData(config);
});

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const PASSWORD = 'correct horse battery staple';
const newLink = async (id: string) => (await owner.post<{ token: string }>(`/api/accounts/${id}/link`)).body.token;

describe('a one-time link', () => {
  it('leaves no token, and no SSO code or state, in the log', async () => {
    const invited = await invite(app.url, { email: email('log'), role: 'analyst' });
    const client = new SessionClient(app.url);
    expect((await client.post('/api/auth/links/peek', { token: invited.token })).body).toMatchObject({
      kind: 'invitation',
    });
    // An old client that still puts the token in the path is refused, and its path is not logged either.
    await fetch(`${app.url}/api/auth/links/${invited.token}`);
    expect((await client.post('/api/auth/links/use', { token: invited.token, password: PASSWORD })).status).toBe(200);
    const code = `code${Math.random().toString(36).slice(2)}`;
    const state = `state${Math.random().toString(36).slice(2)}`;
    await fetch(`${app.url}/api/auth/sso/callback?code=${code}&state=${state}&iss=x`);
    await fetch(`${app.url}/portal/api/auth/links/${invited.token}?token=${invited.token}`);
    const lines = logged.join('');
    expect(lines).toContain('/api/auth/sso/callback');
    for (const secret of [invited.token, invited.token.slice(4), code, state]) expect(lines).not.toContain(secret);
  });

  it('ends the other links of its account when used', async () => {
    const invited = await invite(app.url, { email: email('two'), role: 'analyst' });
    const { client } = await enrol(app.url, invited, PASSWORD);
    const [first, second] = [await newLink(invited.id), await newLink(invited.id)];
    const used = await new SessionClient(app.url).post('/api/auth/links/use', { token: second, password: PASSWORD });
    expect(used.status).toBe(200);
    expect((await new SessionClient(app.url).post('/api/auth/links/peek', { token: first })).body).toMatchObject({
      error: 'link_invalid',
    });
    expect((await client.get('/api/me')).status).toBe(401);
  });

  it('ends the links of an account whose person sets a new password', async () => {
    const invited = await invite(app.url, { email: email('own'), role: 'analyst' });
    const { client } = await enrol(app.url, invited, PASSWORD);
    const pending = await newLink(invited.id);
    const changed = await client.post('/api/me/password', { current_password: PASSWORD, new_password: `${PASSWORD}!` });
    expect(changed.status).toBe(200);
    const stale = await new SessionClient(app.url).post('/api/auth/links/use', { token: pending, password: PASSWORD });
    expect(stale.body).toMatchObject({ error: 'link_invalid' });
  });
});

describe('a password being set', () => {
  it('is refused when it is among the most common, by a link and from the account menu alike', async () => {
    const invited = await invite(app.url, { email: email('weak'), role: 'analyst' });
    const client = new SessionClient(app.url);
    const weak = await client.post('/api/auth/links/use', { token: invited.token, password: 'Password123456' });
    expect(weak.body).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/most common/) });
    expect((await client.post('/api/auth/links/peek', { token: invited.token })).status).toBe(200);
    const { client: signedIn } = await enrol(app.url, invited, PASSWORD);
    const again = await signedIn.post('/api/me/password', { current_password: PASSWORD, new_password: '1qaz2wsx3edc' });
    expect(again.body).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/most common/) });
  });
});

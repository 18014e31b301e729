import { hashPassword } from '../../src/identity/passwords';
import { ManagerClient } from '../support/manager-client';
import { inviteFirstAdmin } from '../support/portal-client';
import { invite, SessionClient } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// The password hasher, counted: argon2id at 19 MiB is the costliest step of a public route, so a link's
// password is hashed only once the link is found; a guessed, used or other realm's token costs nothing.
jest.mock('../../src/identity/passwords', () => {
  const actual = jest.requireActual('../../src/identity/passwords');
  return { ...actual, hashPassword: jest.fn(actual.hashPassword) };
});
const hashed = hashPassword as jest.MockedFunction<typeof hashPassword>;

let app: TestApp;
let partnerId: string;
const PASSWORD = 'correct horse battery staple';
const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const guessed = () => `inv_${Buffer.from(Math.random().toString()).toString('base64url').padEnd(43, 'A')}`;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  const made = await new ManagerClient(app.url).post<{ id: string }>('/api/affiliates', {
    name: 'hashing',
    callback_url: 'http://127.0.0.1:9/hashing',
  });
  partnerId = made.body.id;
});

afterAll(async () => {
  await app?.destroy();
});

const use = (prefix: string, token: string) =>
  new SessionClient(app.url).post(`${prefix}/auth/links/use`, { token, password: PASSWORD });

describe("a one-time link's password", () => {
  it('is not hashed for a link that is not found', async () => {
    const account = await invite(app.url, { email: email('found'), role: 'analyst' });
    const portal = await inviteFirstAdmin(app.url, partnerId);
    expect((await use('/api', account.token)).status).toBe(200);
    hashed.mockClear();
    const refused: [string, string][] = [
      ['/api', guessed()],
      ['/portal/api', guessed()],
      ['/api', account.token], // used
      ['/api', portal.link.token], // the other realm's
    ];
    for (const [prefix, token] of refused)
      expect((await use(prefix, token)).body).toMatchObject({ error: 'link_invalid' });
    expect(hashed).not.toHaveBeenCalled();
  });

  it('is hashed once for a link found', async () => {
    const account = await invite(app.url, { email: email('once'), role: 'analyst' });
    hashed.mockClear();
    expect((await use('/api', account.token)).status).toBe(200);
    expect(hashed).toHaveBeenCalledTimes(1);
  });
});

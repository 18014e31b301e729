import { createRedis, type Redis } from '../../src/shared/redis/client';
import { enrol, invite, type SessionClient } from '../support/session-client';
import { startTestApp, type TestApp } from '../support/test-app';

// A session is refused on every read once its account's sessions were revoked after it was issued (even if its
// key outlived the revocation: a sign-in that finished meanwhile), or once it passed the absolute timeout.
let app: TestApp;
let redis: Redis;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  redis = createRedis(app.config, 'test');
});

afterAll(async () => {
  redis?.disconnect();
  await app?.destroy();
});

const email = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
const sessionKey = (client: SessionClient) =>
  `sess:${decodeURIComponent(client.cookie!.split('=')[1]!).split('.')[0]!}`;

describe('a session', () => {
  it('past the absolute timeout is refused by GET /api/session too', async () => {
    const { client } = await enrol(app.url, await invite(app.url, { email: email('old'), role: 'analyst' }));
    const stored = JSON.parse((await redis.get(sessionKey(client)))!) as { issued_at: number };
    stored.issued_at -= app.config.accounts.absoluteTimeoutS * 1000;
    await redis.set(sessionKey(client), JSON.stringify(stored), 'PX', 60_000);
    expect((await client.get('/api/session')).body).toMatchObject({ error: 'session_expired' });
    expect(await redis.exists(sessionKey(client))).toBe(0);
  });

  it('issued before its account was revoked is refused, even where its key survived the revocation', async () => {
    const invited = await invite(app.url, { email: email('late'), role: 'analyst' });
    const { client } = await enrol(app.url, invited);
    expect((await client.get('/api/me')).status).toBe(200);
    // What a sign-in completing while "sign out everywhere" ran leaves: the mark, and a key it did not delete.
    await redis.set(`sess-revoked:${invited.id}`, String(Date.now() + 1), 'PX', 60_000);
    expect((await client.get('/api/session')).status).toBe(401);
    expect((await client.get('/api/me')).status).toBe(401);
    expect(await redis.exists(sessionKey(client))).toBe(0);
  });
});

import cookie from '@fastify/cookie';
import session from '@fastify/session';
import type { FastifyInstance } from 'fastify';
import type { RedisSessionStore } from './session-store';

export interface SessionCookie {
  secret: string;
  // The realm's cookie and the path it is sent to: lit_session on /api/, lit_portal on /portal/api/.
  name: string;
  path: string;
  store: RedisSessionStore;
}

// Sessions by cookie (@fastify/session, kept in Redis) for the routes registered in `app` after this.
export async function registerSessions(app: FastifyInstance, c: SessionCookie): Promise<void> {
  await app.register(cookie);
  await app.register(session, {
    secret: c.secret,
    cookieName: c.name,
    store: c.store,
    saveUninitialized: false,
    // Idle time is counted in Redis (each read of a session starts it again), not by re-sending the cookie.
    rolling: false,
    // Secure whenever the request came over HTTPS (directly, or through a TRUSTED_PROXIES proxy);
    // Lax, not Strict, so the browser brings the cookie back from the SSO provider's redirect; every
    // request that changes something also needs the CSRF token.
    cookie: { path: c.path, httpOnly: true, secure: 'auto', sameSite: 'lax' },
  });
}

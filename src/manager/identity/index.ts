import cookie from '@fastify/cookie';
import session from '@fastify/session';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/clock';
import type { Config } from '../../shared/config';
import type { PiiCipher } from '../../shared/crypto/pii-cipher';
import type { Db } from 'mongodb';
import type { Redis } from '../../shared/redis/client';
import type { AuditLog } from '../audit-log';
import { accountRoutes } from './account-routes';
import { AccountStore } from './accounts';
import { authenticate } from './authenticate';
import { authRoutes } from './auth-routes';
import { identityCollections } from './identity-store';
import { OneTimeLinks } from './links';
import { meRoutes } from './me-routes';
import { passkeyRoutes } from './passkey-routes';
import { Passkeys } from './passkeys';
import { serviceAccountRoutes } from './service-account-routes';
import { ServiceTokens } from './service-tokens';
import { RedisSessionStore } from './session-store';
import { SignIn } from './sign-in';
import { SignInThrottle } from './sign-in-throttle';
import { ssoRoutes } from './sso-routes';
import { SESSION_COOKIE } from './session-cookie';


export interface IdentityOptions {
  config: Pick<Config, 'managerTokens' | 'serviceName' | 'accounts'>;
  db: Db;
  redis: Redis;
  cipher: PiiCipher;
  audit: AuditLog;
  partnerExists(id: string): Promise<boolean>;
  agentExists(id: string): Promise<boolean>;
  clock: Clock;
}

// People and machines in the manager API: the session cookie (@fastify/session, kept in Redis),
// authentication and the role matrix on every route registered in `app` after this, and the
// routes of signing in, accounts and service accounts.
export async function registerIdentity(app: FastifyInstance, o: IdentityOptions): Promise<void> {
  const { accounts: cfg } = o.config;
  const c = identityCollections(o.db);
  const timeouts = { idleMs: cfg.idleTimeoutS * 1000, absoluteMs: cfg.absoluteTimeoutS * 1000 };
  const sessions = new RedisSessionStore(o.redis, timeouts, o.clock);
  const accounts = new AccountStore(c, o.clock);
  const links = new OneTimeLinks(c, o.clock);
  const tokens = new ServiceTokens(c, o.clock);
  const signIn = new SignIn({ accounts, throttle: new SignInThrottle(o.redis), cipher: o.cipher, audit: o.audit, clock: o.clock });

  await app.register(cookie);
  await app.register(session, {
    secret: cfg.sessionSecret,
    cookieName: SESSION_COOKIE,
    store: sessions,
    saveUninitialized: false,
    // Idle time is counted in Redis (each read of a session starts it again), not by re-sending the cookie.
    rolling: false,
    // Secure whenever the request came over HTTPS (directly, or through a TRUSTED_PROXIES proxy);
    // Lax, not Strict, so the browser brings the cookie back from the SSO provider's redirect; every
    // request that changes something also needs the CSRF token.
    cookie: { path: '/api/', httpOnly: true, secure: 'auto', sameSite: 'lax' },
  });
  authenticate(app, { breakGlassTokens: o.config.managerTokens, serviceTokens: tokens, timeouts, clock: o.clock });

  await app.register(authRoutes({ accounts, links, signIn, sessions, cipher: o.cipher, audit: o.audit, clock: o.clock, serviceName: o.config.serviceName }));
  await app.register(passkeyRoutes({ accounts, passkeys: new Passkeys(c, o.clock), signIn, audit: o.audit, clock: o.clock, serviceName: o.config.serviceName, consoleUrl: cfg.consoleUrl }));
  await app.register(ssoRoutes({ config: cfg.sso, accounts, sessions, audit: o.audit, clock: o.clock }));
  await app.register(meRoutes({ accounts, sessions, audit: o.audit, clock: o.clock }));
  await app.register(accountRoutes({ accounts, links, sessions, audit: o.audit, clock: o.clock, partnerExists: o.partnerExists, agentExists: o.agentExists, consoleUrl: cfg.consoleUrl }));
  await app.register(serviceAccountRoutes({ tokens, audit: o.audit, partnerExists: o.partnerExists }));
}

import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/clock';
import type { Config } from '../../shared/config';
import type { PiiCipher } from '../../shared/crypto/pii-cipher';
import type { Mailer } from '../../shared/mail/mailer';
import type { Db } from 'mongodb';
import type { Redis } from '../../shared/redis/client';
import type { AuditLog } from '../audit-log';
import { accountRoutes } from './account-routes';
import { authenticate } from './authenticate';
import { factorResetRoutes } from './factor-reset-routes';
import { managerOwnAccount } from './own-account';
import { managerRealm } from '../../identity/manager-realm';
import { ownAccountRoutes } from '../../identity/own-account-routes';
import { realmIdentity, registerSignIn } from '../../identity/realm-identity';
import { serviceAccountRoutes } from './service-account-routes';
import { ServiceTokens } from './service-tokens';
import { registerSessions } from '../../identity/register-sessions';
import { ssoRoutes } from './sso-routes';
import { SESSION_COOKIE } from './session-cookie';
import { TokenThrottle } from './token-throttle';

export interface IdentityOptions {
  config: Pick<Config, 'managerTokens' | 'serviceName' | 'accounts'>;
  db: Db;
  redis: Redis;
  cipher: PiiCipher;
  audit: AuditLog;
  partnerExists(id: string): Promise<boolean>;
  agentExists(id: string): Promise<boolean>;
  clock: Clock;
  mailer: Mailer | null;
}

// People and machines in the manager API: the session cookie (@fastify/session, kept in Redis),
// authentication and the role matrix on every route registered in `app` after this, and the
// routes of signing in, accounts and service accounts.
export async function registerIdentity(app: FastifyInstance, o: IdentityOptions): Promise<void> {
  const cfg = o.config.accounts;
  const id = realmIdentity(managerRealm, o);
  const { accounts, links, sessions, timeouts } = id;
  const tokens = new ServiceTokens(id.collections, o.clock);

  await registerSessions(app, { secret: cfg.sessionSecret, name: SESSION_COOKIE, path: '/api/', store: sessions });
  authenticate(app, {
    breakGlassTokens: o.config.managerTokens,
    serviceTokens: tokens,
    tokenFailures: new TokenThrottle(o.redis, cfg.tokenFailuresPerAddress),
    audit: o.audit,
    timeouts,
    clock: o.clock,
  });

  await registerSignIn(app, id, o);
  await app.register(ssoRoutes({ config: cfg.sso, accounts, sessions, audit: o.audit, clock: o.clock }));
  await app.register(ownAccountRoutes({ ...id, audit: o.audit, clock: o.clock }, managerOwnAccount));
  await app.register(
    accountRoutes({
      accounts,
      links,
      sessions,
      audit: o.audit,
      clock: o.clock,
      partnerExists: o.partnerExists,
      agentExists: o.agentExists,
      consoleUrl: cfg.consoleUrl,
      mailer: o.mailer,
    }),
  );
  await app.register(factorResetRoutes({ accounts, sessions, audit: o.audit }));
  await app.register(serviceAccountRoutes({ tokens, audit: o.audit, partnerExists: o.partnerExists }));
}

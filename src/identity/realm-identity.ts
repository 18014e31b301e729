import type { FastifyInstance } from 'fastify';
import type { Db } from 'mongodb';
import type { Clock } from '../shared/clock';
import type { Config } from '../shared/config';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import type { Mailer } from '../shared/mail/mailer';
import type { Redis } from '../shared/redis/client';
import type { AuditRecorder } from '../shared/audit';
import { AccountStore } from './accounts';
import { authRoutes } from './auth-routes';
import { identityCollections, type AccountBase, type IdentityCollections } from './identity-store';
import { OneTimeLinks } from './links';
import { passkeyRoutes } from './passkey-routes';
import { Passkeys } from './passkeys';
import { reauthRoutes } from './reauth-routes';
import type { IdentityRealm } from './realm';
import { RedisSessionStore, type SessionTimeouts } from './session-store';
import { SignIn } from './sign-in';
import { SignInNotice } from './sign-in-notice';
import { SignInThrottle } from './sign-in-throttle';
import { DeviceCookies } from './device-cookie';

export interface RealmIdentityOptions {
  config: Pick<Config, 'serviceName' | 'accounts'>;
  db: Db;
  redis: Redis;
  cipher: PiiCipher;
  audit: AuditRecorder;
  clock: Clock;
  // Null: no SMTP relay configured.
  mailer: Mailer | null;
}

// The account base as one realm sees it: its accounts, one-time links and sessions (each apart from
// the other realm's), and its sign-in.
export interface RealmIdentity<A extends AccountBase> {
  realm: IdentityRealm<A>;
  collections: IdentityCollections;
  accounts: AccountStore<A>;
  links: OneTimeLinks;
  sessions: RedisSessionStore;
  timeouts: SessionTimeouts;
  signIn: SignIn<A>;
}

export function realmIdentity<A extends AccountBase>(
  realm: IdentityRealm<A>,
  o: RealmIdentityOptions,
): RealmIdentity<A> {
  const cfg = o.config.accounts;
  const collections = identityCollections(o.db);
  const timeouts = { idleMs: cfg.idleTimeoutS * 1000, absoluteMs: cfg.absoluteTimeoutS * 1000 };
  const accounts = new AccountStore<A>(collections, o.clock, realm.name);
  return {
    realm,
    collections,
    accounts,
    timeouts,
    links: new OneTimeLinks(collections, o.clock, realm.name),
    sessions: new RedisSessionStore(o.redis, timeouts, o.clock, realm.name === 'manager' ? '' : `${realm.name}:`),
    signIn: new SignIn({
      realm,
      accounts,
      throttle: new SignInThrottle(o.redis, realm.name, cfg.signIn),
      devices: new DeviceCookies(cfg.sessionSecret, realm.name),
      limits: cfg.signIn,
      cipher: o.cipher,
      audit: o.audit,
      clock: o.clock,
    }),
  };
}

// The realm's sign-in steps: password, TOTP, passkeys, one-time links, session, sign-out.
export async function registerSignIn<A extends AccountBase>(
  app: FastifyInstance,
  id: RealmIdentity<A>,
  o: RealmIdentityOptions,
): Promise<void> {
  const common = {
    realm: id.realm,
    accounts: id.accounts,
    signIn: id.signIn,
    audit: o.audit,
    clock: o.clock,
    serviceName: o.config.serviceName,
    notice: o.mailer ? new SignInNotice(o.db, o.mailer, o.clock) : null,
  };
  // Sign-in reads a realm's accounts by email (AccountStore.signInCandidates).
  await id.collections.accounts.createIndex({ email: 1, created_at: 1 }, { name: 'email_created_at' });
  const passkeys = new Passkeys(id.collections, o.clock);
  const consoleUrl = o.config.accounts.consoleUrl;
  await app.register(
    authRoutes({ ...common, links: id.links, sessions: id.sessions, timeouts: id.timeouts, cipher: o.cipher }),
  );
  await app.register(passkeyRoutes({ ...common, passkeys, consoleUrl }));
  await app.register(reauthRoutes({ ...common, passkeys, consoleUrl }));
}

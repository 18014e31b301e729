import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock';
import { ApiError } from '../../shared/errors';
import type { AuditLog } from '../audit-log';
import type { AccountStore } from '../../identity/accounts';
import type { AccountDoc } from '../../identity/identity-store';
import { authSchemas } from './identity-schemas';
import type { RedisSessionStore } from '../../identity/session-store';
import { managerRealm } from '../../identity/manager-realm';
import { accountActor, establish } from '../../identity/session-actions';
import { SingleSignOn, SsoError, type SsoIdentity } from '../../identity/sso';
import { assuranceMet, type SsoConfig } from '../../shared/config/sso-config';

export interface SsoRouteDeps {
  config: SsoConfig | null;
  accounts: AccountStore;
  sessions: RedisSessionStore;
  audit: AuditLog;
  clock: Clock;
}

const CONSOLE = '/console/';
const failed = (reply: FastifyReply, reason: string) =>
  reply.redirect(`${CONSOLE}#/sign-in?sso_error=${encodeURIComponent(reason)}`);

// Single sign-on with the configured OpenID Provider: the browser goes there and comes back with a
// code. The provider's answer decides the role (SSO_ROLE_MAP) at every sign-in; an account is made
// at the first one only when the mapping grants a role, and one whose mapping grants none is refused.
export function ssoRoutes(d: SsoRouteDeps) {
  let provider: Promise<SingleSignOn> | null = null;
  // Discovered at first use, and again after a failure (the provider may be down when we start).
  const sso = (cfg: SsoConfig): Promise<SingleSignOn> => {
    provider ??= SingleSignOn.discover(cfg, { allowHttp: true, now: () => d.clock.now().getTime() }).catch(
      (err: unknown) => {
        provider = null;
        throw err;
      },
    );
    return provider;
  };

  const accountFor = async (req: FastifyRequest, id: SsoIdentity): Promise<AccountDoc | string> => {
    const existing = await d.accounts.bySso(id.issuer, id.subject);
    if (!id.role) {
      // A claim that maps to no role any more takes the account's sessions with it.
      if (existing) await d.sessions.revokeAll(existing._id);
      return 'no_role';
    }
    if (d.config && !assuranceMet(id.authentication, id.role, d.config)) return 'assurance_required';
    const name = id.name ?? id.email ?? id.subject;
    if (!existing) {
      const made = await d.accounts.create(
        {
          email: id.email ?? '',
          name,
          role: id.role,
          partner_ids: [],
          agent_id: null,
          sso: { issuer: id.issuer, subject: id.subject },
        },
        'system:sso',
      );
      if (made)
        await d.audit.record(accountActor(made, 'sso', req.ip), 'account.invite', {
          target: made._id,
          details: { role: made.role, by: 'single sign-on' },
        });
      return made ?? 'account_conflict';
    }
    if (existing.status === 'disabled') return 'account_disabled';
    if (existing.role === id.role && existing.name === name) return existing;
    const updated = await d.accounts.update(existing._id, { role: id.role, name });
    if (existing.role !== id.role) {
      await d.sessions.revokeAll(existing._id);
      await d.audit.record(accountActor(existing, 'sso', req.ip), 'account.update', {
        target: existing._id,
        details: { role: { from: existing.role, to: id.role }, by: 'single sign-on' },
      });
    }
    return updated ?? 'account_conflict';
  };

  return async function register(app: FastifyInstance): Promise<void> {
    const open = { access: 'public' } as const;

    // What the sign-in page offers besides the password.
    app.get('/api/auth/methods', { schema: authSchemas.methods, config: open }, async () => ({
      sso: d.config !== null,
    }));

    app.get('/api/auth/sso', { schema: authSchemas.ssoStart, config: open }, async (req, reply) => {
      if (!d.config) throw new ApiError('not_found');
      const { url, pending } = await (await sso(d.config)).start();
      req.session.sso = pending;
      return reply.redirect(url);
    });

    app.get('/api/auth/sso/callback', { schema: authSchemas.ssoCallback, config: open }, async (req, reply) => {
      if (!d.config) throw new ApiError('not_found');
      const pending = req.session.sso;
      req.session.sso = undefined; // one use, whatever the outcome
      if (!pending) return failed(reply, 'state_mismatch');
      let identity: SsoIdentity;
      try {
        identity = await (await sso(d.config)).finish(new URL(req.url, 'http://callback.invalid'), pending);
      } catch (err) {
        if (!(err instanceof SsoError)) throw err;
        req.log.warn({ reason: err.reason }, 'single sign-on refused');
        await d.audit.record(
          { id: 'anonymous', name: 'anonymous', method: 'sso', address: req.ip },
          'account.sign_in_failed',
          { details: { step: 'sso', reason: err.reason } },
        );
        return failed(reply, err.reason);
      }
      const account = await accountFor(req, identity);
      if (typeof account === 'string') {
        await d.audit.record(
          { id: 'anonymous', name: identity.subject, method: 'sso', address: req.ip },
          'account.sign_in_failed',
          { details: { step: 'sso', reason: account } },
        );
        return failed(reply, account);
      }
      await establish(req, managerRealm, account, 'signed_in', 'sso', d.clock);
      await d.accounts.update(account._id, { last_sign_in_at: d.clock.now() });
      await d.audit.record(accountActor(account, 'sso', req.ip), 'account.sign_in', {
        target: account._id,
        details: { issuer: identity.issuer },
      });
      return reply.redirect(CONSOLE);
    });
  };
}

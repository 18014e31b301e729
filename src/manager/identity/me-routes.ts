import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/clock';
import { ApiError } from '../../shared/errors';
import type { AuditLog } from '../audit-log';
import { orNotFound } from '../../shared/http/lookup';
import { accountView, type AccountStore } from '../../identity/accounts';
import type { AccountDoc } from '../../identity/identity-store';
import { meSchemas } from './identity-schemas';
import type { OneTimeLinks } from '../../identity/links';
import { changeOwnPassword, type PasswordChange } from '../../identity/own-password';
import { managerRealm } from '../../identity/realm';
import { sessionView } from '../../identity/session-actions';
import type { RedisSessionStore } from '../../identity/session-store';
import type { SignIn } from '../../identity/sign-in';

export interface MeRouteDeps {
  accounts: AccountStore;
  sessions: RedisSessionStore;
  signIn: SignIn<AccountDoc>;
  links: OneTimeLinks;
  audit: AuditLog;
  clock: Clock;
}

// A signed-in person's own account: who they are, their password, signing out everywhere.
export function meRoutes(d: MeRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    const self = { access: 'signed_in' } as const;

    app.get('/api/me', { schema: meSchemas.me, config: self }, async (req) => {
      const { id, name, role, kind } = req.principal;
      return {
        principal: { id, name, role, kind },
        account: kind === 'account' ? accountView(orNotFound(await d.accounts.find(id))) : null,
      };
    });

    // A new password ends every other session and gives this one a new id.
    app.post<{ Body: PasswordChange }>(
      '/api/me/password',
      { schema: meSchemas.password, config: self },
      async (req) => {
        if (req.principal.kind !== 'account')
          throw new ApiError('conflict', { detail: 'Only a person signed in with a session has a password' });
        const account = await changeOwnPassword(d, managerRealm, req, req.principal.id);
        await d.audit.record(req.actor, 'account.password_set', {
          target: account._id,
          details: { by: 'account menu' },
        });
        return sessionView(req, managerRealm);
      },
    );

    app.post(
      '/api/me/sign-out-everywhere',
      { schema: meSchemas.signOutEverywhere, config: self },
      async (req, reply) => {
        if (req.principal.kind !== 'account') throw new ApiError('conflict', { detail: 'Only a person has sessions' });
        await d.sessions.revokeAll(req.principal.id);
        await d.audit.record(req.actor, 'account.sessions_revoked', { target: req.principal.id });
        return reply.code(204).send();
      },
    );
  };
}

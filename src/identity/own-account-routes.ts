import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import type { AuditRecorder } from '../shared/audit';
import { ApiError } from '../shared/errors';
import type { AccountBase } from './identity-store';
import { changeOwnPassword, type OwnPasswordDeps, type PasswordChange } from './own-password';
import { ownPartner, principalIn, type Principal } from './principal';
import { accountAction, type IdentityRealm } from './realm';
import { sessionView } from './session-actions';

export interface OwnAccountDeps<A extends AccountBase> extends OwnPasswordDeps<A> {
  realm: IdentityRealm<A>;
  audit: AuditRecorder;
}

// What a realm answers of someone's own account: its route schemas and who they are (`account` null
// for a principal that is no person, a token's).
export interface OwnAccountAnswers<A extends AccountBase> {
  schemas: Record<'me' | 'password' | 'signOutEverywhere', FastifySchema>;
  me(principal: Principal, account: A | null): unknown;
}

// Someone's own account, in either realm: who they are, a new password, signing out everywhere. Any
// signed-in person of the realm may (realm.own); only a person, not a token, has a password and sessions.
export function ownAccountRoutes<A extends AccountBase>(d: OwnAccountDeps<A>, answers: OwnAccountAnswers<A>) {
  const { realm } = d;
  const [passwordSet, sessionsRevoked] = [
    accountAction(realm, 'password_set'),
    accountAction(realm, 'sessions_revoked'),
  ];
  const person = (req: FastifyRequest, detail: string): Principal => {
    const principal = principalIn(req, realm.name);
    if (principal.kind !== 'account') throw new ApiError('conflict', { detail });
    return principal;
  };
  return async function register(app: FastifyInstance): Promise<void> {
    const { schemas } = answers;
    app.get(`${realm.prefix}/me`, { schema: schemas.me, config: realm.own }, async (req) => {
      const principal = principalIn(req, realm.name);
      if (principal.kind !== 'account') return answers.me(principal, null);
      const account = await d.accounts.find(principal.id);
      if (!account) throw new ApiError(realm.unauthorized);
      return answers.me(principal, account);
    });

    // A new password ends every other session and gives this one a new id.
    app.post<{ Body: PasswordChange }>(
      `${realm.prefix}/me/password`,
      { schema: schemas.password, config: { ...realm.own, audit: passwordSet } },
      async (req) => {
        const { id } = person(req, 'Only a person signed in with a session has a password');
        const account = await changeOwnPassword(d, realm, req, id);
        await d.audit.record(req.actor, passwordSet, {
          partnerId: realm.partnerOf(account),
          target: account._id,
          details: { by: 'account menu' },
        });
        return sessionView(req, realm);
      },
    );

    app.post(
      `${realm.prefix}/me/sign-out-everywhere`,
      { schema: schemas.signOutEverywhere, config: { ...realm.own, audit: sessionsRevoked } },
      async (req, reply) => {
        const principal = person(req, 'Only a person has sessions');
        await d.sessions.revokeAll(principal.id);
        await d.audit.record(req.actor, sessionsRevoked, {
          partnerId: ownPartner(principal),
          target: principal.id,
        });
        return reply.code(204).send();
      },
    );
  };
}

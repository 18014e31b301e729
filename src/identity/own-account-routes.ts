import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors';
import type { AuditLog } from '../manager/audit-log';
import type { PortalAccountDoc } from './identity-store';
import { changeOwnPassword, type OwnPasswordDeps, type PasswordChange } from './own-password';
import type { IdentityRealm } from './realm';
import { sessionView } from './session-actions';
import { portalUserView } from '../portal/api/people/portal-users';
import { PORTAL_API } from './portal-realm';
import { ownAccountSchemas } from '../portal/api/people/user-schemas';

export interface OwnAccountDeps extends OwnPasswordDeps<PortalAccountDoc> {
  realm: IdentityRealm<PortalAccountDoc>;
  audit: AuditLog;
}

// A partner's person's own account: who they are, a new password, signing out everywhere. Every
// portal role may (portal.read): it is their own account, not their partner's.
export function ownAccountRoutes(d: OwnAccountDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    const own = { portalAccess: 'portal.read' } as const;

    app.get(`${PORTAL_API}/me`, { schema: ownAccountSchemas.me, config: own }, async (req) => {
      const account = await d.accounts.find(req.portal.accountId);
      if (!account) throw new ApiError('portal_unauthorized');
      return { account: portalUserView(account) };
    });

    app.post<{ Body: PasswordChange }>(
      `${PORTAL_API}/me/password`,
      { schema: ownAccountSchemas.password, config: { ...own, audit: 'portal.password_set' } },
      async (req) => {
        const { actor, partnerId, accountId } = req.portal;
        await changeOwnPassword(d, d.realm, req, accountId);
        await d.audit.record(actor, 'portal.password_set', {
          partnerId,
          target: accountId,
          details: { by: 'account menu' },
        });
        return sessionView(req, d.realm);
      },
    );

    app.post(
      `${PORTAL_API}/me/sign-out-everywhere`,
      { schema: ownAccountSchemas.signOutEverywhere, config: { ...own, audit: 'portal.sessions_revoked' } },
      async (req, reply) => {
        const { actor, partnerId, accountId } = req.portal;
        await d.sessions.revokeAll(accountId);
        await d.audit.record(actor, 'portal.sessions_revoked', { partnerId, target: accountId });
        return reply.code(204).send();
      },
    );
  };
}

import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../shared/errors';
import type { AuditLog } from '../../audit-log';
import type { PortalAccountDoc } from '../../identity/identity-store';
import { changeOwnPassword, type OwnPasswordDeps, type PasswordChange } from '../../identity/own-password';
import type { IdentityRealm } from '../../identity/realm';
import { sessionView } from '../../identity/session-actions';
import { isKnownTimeZone } from '../../../shared/local-time';
import { personZone } from '../person-zone';
import { portalUserView } from './portal-users';
import { PORTAL_API } from './portal-realm';
import { ownAccountSchemas } from './user-schemas';

export interface OwnAccountDeps extends OwnPasswordDeps<PortalAccountDoc> {
  realm: IdentityRealm<PortalAccountDoc>;
  audit: AuditLog;
  partnerZone(partnerId: string): Promise<string | null>;
}

// A partner's person's own account: who they are, their time zone, a new password, signing out
// everywhere. Every portal role may (portal.read): it is their own account, not their partner's.
export function ownAccountRoutes(d: OwnAccountDeps) {
  const me = async (account: PortalAccountDoc | null) => {
    if (!account) throw new ApiError('portal_unauthorized');
    return {
      account: portalUserView(account),
      time_zone: personZone(account.time_zone, await d.partnerZone(account.partner_id)),
    };
  };
  return async function register(app: FastifyInstance): Promise<void> {
    const own = { portalAccess: 'portal.read' } as const;

    app.get(`${PORTAL_API}/me`, { schema: ownAccountSchemas.me, config: own }, async (req) =>
      me(await d.accounts.find(req.portal.accountId)),
    );

    // A display setting of the person's own (not their partner's), so not an audited action.
    app.patch<{ Body: { time_zone: string | null } }>(
      `${PORTAL_API}/me`,
      { schema: ownAccountSchemas.timeZone, config: own },
      async (req) => {
        const zone = req.body.time_zone;
        if (zone !== null && !isKnownTimeZone(zone))
          throw new ApiError('invalid_request', { detail: `/time_zone "${zone}" is not an IANA time zone` });
        return me(await d.accounts.update(req.portal.accountId, { time_zone: zone }));
      },
    );

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

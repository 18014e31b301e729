import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../shared/errors';
import type { PortalRole } from '../../../identity/portal-roles';
import { orNotFound, type IdParams } from '../../../shared/http/lookup';
import type { RedisSessionStore } from '../../../identity/session-store';
import { invitePortalUser, portalUserView, type PortalInviteDeps } from './portal-users';
import { PORTAL_API } from '../../../identity/portal-realm';
import { userSchemas } from './user-schemas';
import { portalPartner } from '../../../identity/principal';

export interface UserRouteDeps extends PortalInviteDeps {
  sessions: RedisSessionStore;
}

// A partner admin's colleagues: the list, invitations and disabling. Only the partner of the session
// is ever read or changed: another partner's person is unknown here (404).
export function portalUserRoutes(d: UserRouteDeps) {
  const ownUser = async (partnerId: string, id: string) => {
    const account = await d.accounts.find(id);
    return orNotFound(account && account.partner_id === partnerId ? account : null);
  };

  return async function register(app: FastifyInstance): Promise<void> {
    const users = { portalAccess: 'portal.users' } as const;

    app.get(`${PORTAL_API}/users`, { schema: userSchemas.list, config: users }, async (req) => ({
      items: (await d.accounts.list({ partner_id: portalPartner(req) })).map(portalUserView),
    }));

    app.post<{ Body: { email: string; name: string; role: PortalRole } }>(
      `${PORTAL_API}/users`,
      { schema: userSchemas.invite, config: { ...users, audit: 'portal.user.invite' } },
      async (req, reply) => {
        const invited = await invitePortalUser(d, req, req.actor, {
          ...req.body,
          partnerId: portalPartner(req),
        });
        return reply.code(201).send(invited);
      },
    );

    // Disabling ends every session the person has, including requests still running.
    app.post<IdParams>(
      `${PORTAL_API}/users/:id/disable`,
      { schema: userSchemas.disable, config: { ...users, audit: 'portal.user.disable' } },
      async (req) => {
        const account = await ownUser(portalPartner(req), req.params.id);
        if (account._id === req.principal.id)
          throw new ApiError('conflict', { detail: 'You cannot disable yourself; ask another admin of your partner' });
        const updated = orNotFound(await d.accounts.update(account._id, { status: 'disabled' }));
        await d.sessions.revokeAll(account._id);
        await d.audit.record(req.actor, 'portal.user.disable', {
          partnerId: portalPartner(req),
          target: account._id,
          details: { from: account.status },
        });
        return portalUserView(updated);
      },
    );
  };
}

import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../shared/errors';
import type { IdParams } from '../../../shared/http/lookup';
import { invitePortalUser, type PortalInviteDeps } from './portal-users';
import { portalInvitationSchema } from './user-schemas';

export interface InvitationRouteDeps extends PortalInviteDeps {
  partnerExists(id: string): Promise<boolean>;
}

// The manager's side of the portal: who may change a partner's settings (an affiliate manager only
// for their own partners; another partner is unknown, 404) invites that partner's first admin.
export function portalInvitationRoute(d: InvitationRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post<IdParams & { Body: { email: string; name: string } }>(
      '/api/affiliates/:id/portal-invitations',
      {
        schema: portalInvitationSchema,
        config: { access: 'partners.settings', partnerParam: true, audit: 'portal.user.invite' },
      },
      async (req, reply) => {
        if (!(await d.partnerExists(req.params.id))) throw new ApiError('not_found');
        const invited = await invitePortalUser(d, req, req.actor, {
          ...req.body,
          role: 'partner_admin',
          partnerId: req.params.id,
        });
        return reply.code(201).send(invited);
      },
    );
  };
}

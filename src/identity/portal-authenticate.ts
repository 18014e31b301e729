import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors';
import { portalCan, PORTAL_ROLES } from './portal-roles';
import { documentAccess } from './route-access';
import { auditActor, decoratePrincipal, principalIn } from './principal';
import type { PortalAccountDoc } from './identity-store';
import type { IdentityRealm } from './realm';
import { sessionPrincipal, type SessionCheckDeps } from './session-check';
import './portal-access';

// Every route registered in `app` after this states its portal access, or the server does not start.
// A request is then authenticated by the portal's session alone (no bearer token, whatever it is:
// the portal is for people) and authorised before its body is read; `req.principal` names the person
// and their partner, which no request can choose.
export function portalAuthenticate(
  app: FastifyInstance,
  realm: IdentityRealm<PortalAccountDoc>,
  deps: SessionCheckDeps & { partnerActive: (partnerId: string) => Promise<boolean> },
): void {
  decoratePrincipal(app);
  app.addHook('onRoute', (route) => {
    const access = route.config?.portalAccess;
    if (!access)
      throw new Error(
        `${String(route.method)} ${route.url} states no access (config.portalAccess): every portal route needs one`,
      );
    documentAccess(route, access, access === 'public' ? [] : PORTAL_ROLES.filter((r) => portalCan(r, access)));
  });

  app.addHook('onRequest', async (req) => {
    const access = req.routeOptions.config.portalAccess;
    if (access === 'public' || access === undefined) return;
    if (req.headers.authorization !== undefined) throw new ApiError('portal_unauthorized');
    req.principal = await sessionPrincipal(req, realm, deps);
    req.actor = auditActor(req.principal);
    const { role, partnerId } = principalIn(req, 'portal');
    // The partner disabled since the sign-in: its people's sessions end at their next request.
    if (!(await deps.partnerActive(partnerId))) {
      await req.session.destroy();
      throw new ApiError('partner_disabled');
    }
    if (!portalCan(role, access)) throw new ApiError('forbidden', { permission: access });
  });
}

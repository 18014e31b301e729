import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors';
import { portalCan, PORTAL_ROLES } from './portal-roles';
import { documentAccess } from './route-access';
import { signedInSession, type SessionCheckDeps } from './session-check';
import type { PortalPrincipal } from './portal-access';

// Every route registered in `app` after this states its portal access, or the server does not start.
// A request is then authenticated by the portal's session alone (no bearer token, whatever it is:
// the portal is for people) and authorised before its body is read; `req.portal` names the person and
// their partner, which no request can choose.
export function portalAuthenticate(
  app: FastifyInstance,
  deps: SessionCheckDeps & { partnerActive: (partnerId: string) => Promise<boolean> },
): void {
  app.decorateRequest('portal', null as unknown as PortalPrincipal);

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
    const s = await signedInSession(req, 'portal', deps, 'portal_unauthorized');
    if (!s.account_id || !s.portal_role || !s.partner_id) throw new ApiError('portal_unauthorized');
    const name = s.name ?? s.account_id;
    req.portal = {
      accountId: s.account_id,
      name,
      role: s.portal_role,
      partnerId: s.partner_id,
      actor: { id: s.account_id, name, method: s.method === 'passkey' ? 'passkey' : 'password', address: req.ip },
    };
    // The partner disabled since the sign-in: its people's sessions end at their next request.
    if (!(await deps.partnerActive(s.partner_id))) {
      await req.session.destroy();
      throw new ApiError('partner_disabled');
    }
    if (!portalCan(s.portal_role, access)) throw new ApiError('forbidden', { permission: access });
  });
}

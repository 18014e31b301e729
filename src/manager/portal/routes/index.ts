import type { FastifyPluginAsync } from 'fastify';
import type { ManagerServices } from '../../services';
import '../portal-access';

// The partner's own pages over the manager's services, each route scoped to `req.portal.partnerId`.
export function portalDataRoutes(_services: ManagerServices): FastifyPluginAsync {
  return async () => {};
}

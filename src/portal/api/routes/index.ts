import type { FastifyInstance } from 'fastify';
import type { ManagerServices } from '../../../manager/services';
import '../../../identity/portal-access';
import { capRoutes } from './cap-routes';
import { deliveryRoutes } from './delivery-routes';
import { endpointRoutes } from './endpoint-routes';
import { integrationRoutes } from './integration-routes';
import { leadExportRoutes } from './lead-export';
import { leadRoutes } from './lead-routes';
import { overviewRoutes } from './overview-routes';
import { portalDeps, type PortalDataOptions, type PortalDeps } from './portal-deps';

export { registerPortalOpenApi, PORTAL_OPENAPI_PATH } from './openapi';
export type { PortalDataOptions } from './portal-deps';

// The partner's own pages over the manager's services, each route scoped to `portalPartner(req)`
// (never a partner id from the request). Registered where the portal's auth hook sets req.principal,
// after registerPortalOpenApi (so the portal's document covers every /portal/api route); `o` is the
// manager's options (managerPlugin's), for the settings and clients the routes answer by.
export function portalDataRoutes(services: ManagerServices, o: PortalDataOptions, zoneOf: PortalDeps['zoneOf']) {
  const d = { ...portalDeps(services, o), zoneOf };
  return async function register(app: FastifyInstance): Promise<void> {
    await app.register(overviewRoutes(d));
    await app.register(capRoutes(d));
    await app.register(leadRoutes(d));
    await app.register(leadExportRoutes(d));
    await app.register(deliveryRoutes(d));
    await app.register(endpointRoutes(d));
    await app.register(integrationRoutes(d));
  };
}

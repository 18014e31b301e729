import type { FastifyInstance } from 'fastify';
import type { PortalDeps } from './portal-deps';
import { portalDataSchemas } from './portal-schemas';
import { portalPartner } from '../../../identity/principal';

// GET /portal/api/caps: the partner's caps now, for its overview.
export function capRoutes(d: Pick<PortalDeps, 'partners' | 'capUse'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get(
      '/portal/api/caps',
      { schema: portalDataSchemas.caps, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const partner = await d.partners.find(portalPartner(req));
        const capped = {
          _id: portalPartner(req),
          caps: partner?.caps ?? null,
          time_zone: partner?.time_zone,
          mode: partner?.mode,
        };
        return { time_zone: capped.time_zone ?? 'UTC', caps: await d.capUse(capped) };
      },
    );
  };
}

import type { FastifyInstance } from 'fastify';
import type { DeliveryFilter } from '../../../manager/delivery-queue';
import { retryDeadDeliveries, retryDelivery } from '../../../manager/endpoint-actions';
import type { CursorRequest } from '../../../manager/pagination';
import { orNotFound, type IdParams } from '../../../shared/http/lookup';
import { portalDataSchemas } from './portal-schemas';
import { portalDelivery } from './portal-views';
import type { PortalDeps } from './portal-deps';
import { portalPartner } from '../../../identity/principal';

type Deps = Pick<PortalDeps, 'deliveries' | 'dispatcher' | 'audit'>;

// The partner's callbacks and postbacks from the manager's delivery queue, its partner as the
// scope; retries through the dispatcher's commands as a manager's are, audited as the partner's person.
export function deliveryRoutes({ deliveries: queue, dispatcher, audit }: Deps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: Omit<DeliveryFilter, 'affiliate_id'> & CursorRequest }>(
      '/portal/api/deliveries',
      { schema: portalDataSchemas.listDeliveries, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const page = await queue.page(req.query, req.query, new Set([portalPartner(req)]));
        return { items: page.items.map(portalDelivery), next_cursor: page.next_cursor };
      },
    );

    app.get<IdParams>(
      '/portal/api/deliveries/:id',
      { schema: portalDataSchemas.showDelivery, config: { portalAccess: 'portal.read' } },
      async (req) => portalDelivery(orNotFound(await queue.find(req.params.id, new Set([portalPartner(req)])))),
    );

    app.post<IdParams>(
      '/portal/api/deliveries/:id/retry',
      { schema: portalDataSchemas.retryDelivery, config: { portalAccess: 'portal.act', audit: 'delivery.retry' } },
      async (req) => {
        // Read first: another partner's delivery is unknown, and no command is sent for it.
        orNotFound(await queue.find(req.params.id, new Set([portalPartner(req)])));
        return portalDelivery(await retryDelivery({ dispatcher, audit }, req.params.id, req.actor));
      },
    );

    app.post(
      '/portal/api/deliveries/retry-dead',
      { schema: portalDataSchemas.retryDead, config: { portalAccess: 'portal.act', audit: 'delivery.retry_dead' } },
      async (req) => retryDeadDeliveries({ dispatcher, audit }, portalPartner(req), req.actor),
    );
  };
}

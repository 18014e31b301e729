import type { FastifyInstance } from 'fastify';
import { routeSchemas } from '../api-schemas';
import type { DeliveryFilter } from '../delivery-queue';
import { retryDeadDeliveries, retryDelivery } from '../endpoint-actions';
import type { CursorRequest } from '../pagination';
import type { ManagerServices } from '../services';
import { orNotFound, type IdParams } from '../../shared/http/lookup';

// The callback delivery queue (spec 6.3) and the manual retry of dead deliveries.
export function deliveryRoutes({
  deliveries: queue,
  dispatcher,
  partners,
  audit,
}: Pick<ManagerServices, 'deliveries' | 'dispatcher' | 'partners' | 'audit'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: DeliveryFilter & CursorRequest }>(
      '/api/deliveries',
      { schema: routeSchemas.listDeliveries, config: { access: 'deliveries.read' } },
      async (req) => queue.page(req.query, req.query, req.principal.partnerScope),
    );

    app.get<IdParams>(
      '/api/deliveries/:id',
      { schema: routeSchemas.showDelivery, config: { access: 'deliveries.read' } },
      async (req) => orNotFound(await queue.find(req.params.id, req.principal.partnerScope)),
    );

    app.post<IdParams>(
      '/api/deliveries/:id/retry',
      { schema: routeSchemas.retryDelivery, config: { access: 'deliveries.retry' } },
      async (req) => {
        // An affiliate manager's retry reads the record first: another partner's delivery is unknown.
        if (req.principal.partnerScope !== null)
          orNotFound(await queue.find(req.params.id, req.principal.partnerScope));
        return retryDelivery({ dispatcher, audit }, req.params.id, req.actor);
      },
    );

    app.post<IdParams>(
      '/api/affiliates/:id/deliveries/retry-dead',
      { schema: routeSchemas.retryDeadDeliveries, config: { access: 'deliveries.retry', partnerParam: true } },
      async (req) => {
        orNotFound(await partners.find(req.params.id));
        return retryDeadDeliveries({ dispatcher, audit }, req.params.id, req.actor);
      },
    );
  };
}

import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import { routeSchemas } from '../api-schemas';
import { deliveryView, type DeliveryFilter } from '../delivery-queue';
import type { CursorRequest } from '../pagination';
import type { ManagerServices } from '../services';
import { orNotFound, type IdParams } from './lookup';

// The callback delivery queue (spec 6.3) and the manual retry of dead deliveries.
export function deliveryRoutes({ deliveries: queue, dispatcher, partners, audit }: Pick<ManagerServices, 'deliveries' | 'dispatcher' | 'partners' | 'audit'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: DeliveryFilter & CursorRequest }>('/api/deliveries', { schema: routeSchemas.listDeliveries, config: { access: 'deliveries.read' } }, async (req) =>
      queue.page(req.query, req.query, req.principal.partnerScope));

    app.get<IdParams>('/api/deliveries/:id', { schema: routeSchemas.showDelivery, config: { access: 'deliveries.read' } }, async (req) =>
      orNotFound(await queue.find(req.params.id, req.principal.partnerScope)));

    app.post<IdParams>('/api/deliveries/:id/retry', { schema: routeSchemas.retryDelivery, config: { access: 'deliveries.retry' } }, async (req) => {
      // An affiliate manager's retry reads the record first: another partner's delivery is unknown.
      if (req.principal.partnerScope !== null) orNotFound(await queue.find(req.params.id, req.principal.partnerScope));
      const result = await dispatcher.retry(req.params.id, req.actor.id);
      if (result.outcome === 'not_found') throw new ApiError('not_found');
      if (result.outcome === 'not_dead') throw new ApiError('conflict', { detail: 'Only a dead delivery can be retried by hand' });
      if (result.outcome === 'pending') throw new ApiError('command_pending', { command: 'retry' }, { 'retry-after': '5' });
      // The record as the owner requeued it (it may be attempting it already).
      const delivery = deliveryView(result.delivery);
      await audit.record(req.actor, 'delivery.retry', { partnerId: delivery.affiliate_id, target: delivery.id });
      return delivery;
    });

    app.post<IdParams>('/api/affiliates/:id/deliveries/retry-dead', { schema: routeSchemas.retryDeadDeliveries, config: { access: 'deliveries.retry', partnerParam: true } }, async (req) => {
      orNotFound(await partners.find(req.params.id));
      const { requeued, pending } = await dispatcher.retryDead(req.params.id, req.actor.id);
      await audit.record(req.actor, 'delivery.retry_dead', { partnerId: req.params.id, details: { requeued, pending } });
      return { requeued, pending };
    });
  };
}

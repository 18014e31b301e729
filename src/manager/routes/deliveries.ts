import type { FastifyInstance } from 'fastify';
import { DispatcherCommands } from '../../dispatcher/commands';
import { ApiError } from '../../shared/errors';
import type { Runtime } from '../../shared/runtime';
import { routeSchemas } from '../api-schemas';
import { recordAudit } from '../audit-log';
import { DeliveryQueue, deliveryView, type DeliveryFilter } from '../delivery-queue';
import type { CursorRequest } from '../pagination';
import { findPartnerDoc } from '../partner-service';
import { orNotFound, type IdParams } from './lookup';

// The callback delivery queue (spec 6.3) and the manual retry of dead deliveries.
export function deliveryRoutes(rt: Runtime) {
  const dispatcher = new DispatcherCommands({
    deliveries: rt.mongo.collections.deliveries, deliveryList: rt.mongo.collections.deliveryList, producer: rt.producer, codec: rt.codec, topics: rt.topics, retryDelaysS: rt.config.callbacks.retryDelaysS,
  });
  const queue = new DeliveryQueue(rt.mongo.collections.deliveries, rt.mongo.collections.deliveryList);
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: DeliveryFilter & CursorRequest }>('/api/deliveries', { schema: routeSchemas.listDeliveries }, async (req) =>
      queue.page(req.query, req.query));

    app.get<IdParams>('/api/deliveries/:id', { schema: routeSchemas.showDelivery }, async (req) =>
      orNotFound(await queue.find(req.params.id)));

    app.post<IdParams>('/api/deliveries/:id/retry', { schema: routeSchemas.retryDelivery }, async (req) => {
      const result = await dispatcher.retry(req.params.id, req.managerActor);
      if (result.outcome === 'not_found') throw new ApiError('not_found');
      if (result.outcome === 'not_dead') throw new ApiError('conflict', { detail: 'Only a dead delivery can be retried by hand' });
      // The record as the retry command makes it (the dispatcher may be attempting it already).
      const delivery = deliveryView(result.delivery);
      await recordAudit(rt, req.managerActor, 'delivery.retry', { partnerId: delivery.affiliate_id, target: delivery.id });
      return delivery;
    });

    app.post<IdParams>('/api/affiliates/:id/deliveries/retry-dead', { schema: routeSchemas.retryDeadDeliveries }, async (req) => {
      orNotFound(await findPartnerDoc(rt, req.params.id));
      const requeued = await dispatcher.retryDead(req.params.id, req.managerActor);
      await recordAudit(rt, req.managerActor, 'delivery.retry_dead', { partnerId: req.params.id, details: { requeued } });
      return { requeued };
    });
  };
}

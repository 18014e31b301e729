import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../shared/runtime';
import { routeSchemas } from '../api-schemas';
import { findLead, findLeadByExternalId } from '../lead-lookup';
import { orNotFound, type IdParams } from './lookup';

// A lead found by our id or by its partner's external id, as a lead desk asks about it.
export function leadRoutes(rt: Runtime) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<IdParams>('/api/leads/:id', { schema: routeSchemas.showLead }, async (req) => orNotFound(await findLead(rt, req.params.id)));

    app.get<{ Params: { id: string; externalId: string } }>('/api/affiliates/:id/leads/:externalId', { schema: routeSchemas.showPartnerLead }, async (req) =>
      orNotFound(await findLeadByExternalId(rt, req.params.id, req.params.externalId)));
  };
}

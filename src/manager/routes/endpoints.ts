import type { FastifyInstance } from 'fastify';
import type { DeliveryKind } from '../../shared/delivery-kind';
import { routeSchemas } from '../api-schemas';
import { replayJobView, resumeEndpoint, startReplay, type ReplayAsked } from '../endpoint-actions';
import type { ManagerServices } from '../services';
import { inScope } from '../../identity/principal';
import { orNotFound, type IdParams } from '../../shared/http/lookup';

interface KindQuery {
  Querystring: { kind: DeliveryKind };
}

// A partner's callback endpoint and tracker: their health, resuming it after an auto-pause, and
// replaying its callbacks over a time range. The dispatcher does the work (commands.ts); a refused
// request changes nothing and is audited (refusal-audit.ts).
export function endpointRoutes({
  endpoints,
  partners,
  audit,
  maxRangeS,
}: Pick<ManagerServices, 'endpoints' | 'partners' | 'audit'> & { maxRangeS: number }) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<IdParams & KindQuery>(
      '/api/affiliates/:id/endpoint-health',
      { schema: routeSchemas.endpointHealth, config: { access: 'endpoints.read', partnerParam: true } },
      async (req) => {
        orNotFound(await partners.find(req.params.id));
        return endpoints.health(req.params.id, req.query.kind);
      },
    );

    app.post<IdParams & KindQuery>(
      '/api/affiliates/:id/endpoint/resume',
      {
        schema: routeSchemas.resumeEndpoint,
        config: { access: 'endpoints.resume', partnerParam: true, audit: 'endpoint.resume' },
      },
      async (req, reply) => {
        orNotFound(await partners.find(req.params.id));
        return reply
          .code(202)
          .send(await resumeEndpoint({ endpoints, audit }, req.params.id, req.query.kind, req.actor));
      },
    );

    app.post<IdParams & { Body: Omit<ReplayAsked, 'partnerId'> }>(
      '/api/affiliates/:id/replay',
      { schema: routeSchemas.replay, config: { access: 'replays', partnerParam: true, audit: 'partner.replay' } },
      async (req, reply) => {
        orNotFound(await partners.find(req.params.id));
        const job = await startReplay(
          { endpoints, audit },
          { ...req.body, partnerId: req.params.id },
          maxRangeS,
          req.actor,
        );
        return reply.code(202).send(replayJobView(job));
      },
    );

    app.get<IdParams>(
      '/api/replays/:id',
      { schema: routeSchemas.showReplay, config: { access: 'replays' } },
      async (req) => {
        const job = orNotFound(await endpoints.replayJob(req.params.id));
        // Another partner's job is unknown to an affiliate manager.
        return replayJobView(orNotFound(inScope(req.principal, job.partner_id) ? job : null));
      },
    );
  };
}

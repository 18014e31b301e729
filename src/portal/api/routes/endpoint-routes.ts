import type { FastifyInstance } from 'fastify';
import type { DeliveryKind } from '../../../shared/delivery-kind';
import type { LeadEvent } from '../../../shared/schemas';
import { DELIVERY_KINDS } from '../../../manager/api-schemas';
import {
  resumeEndpoint,
  sendTestCallback,
  sendTestPostback,
  startReplay,
  type ReplayAsked,
} from '../../../manager/endpoint-actions';
import { orNotFound, type IdParams } from '../../../shared/http/lookup';
import { portalDataSchemas } from './portal-schemas';
import { portalReplay } from './portal-views';
import type { PortalDeps } from './portal-deps';
import { portalPartner } from '../../../identity/principal';

type Deps = Pick<PortalDeps, 'endpoints' | 'partners' | 'audit' | 'config'>;

// The partner's endpoints (its callback URL and its tracker): health, resume, replays, test sends.
// The same commands and audit entries as the manager's routes (endpoint-actions.ts), for its own
// partner only.
export function endpointRoutes({ endpoints, partners, audit, config }: Deps) {
  const partnerOf = async (id: string) => orNotFound(await partners.find(id));

  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Body: Omit<ReplayAsked, 'partnerId'> }>(
      '/portal/api/replays',
      { schema: portalDataSchemas.replay, config: { portalAccess: 'portal.act', audit: 'partner.replay' } },
      async (req, reply) => {
        const job = await startReplay(
          { endpoints, audit },
          { ...req.body, partnerId: portalPartner(req) },
          config.replay.maxRangeS,
          req.actor,
        );
        return reply.code(202).send(portalReplay(job));
      },
    );

    app.get<IdParams>(
      '/portal/api/replays/:id',
      { schema: portalDataSchemas.showReplay, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const job = await endpoints.replayJob(req.params.id);
        return portalReplay(orNotFound(job && job.partner_id === portalPartner(req) ? job : null));
      },
    );

    app.post(
      '/portal/api/test-callback',
      {
        schema: portalDataSchemas.testCallback,
        config: { portalAccess: 'portal.act', audit: 'partner.test_callback' },
      },
      async (req) => sendTestCallback({ endpoints, audit }, await partnerOf(portalPartner(req)), req.actor),
    );

    app.post<{ Body: { event?: LeadEvent['event'] } | null }>(
      '/portal/api/test-postback',
      {
        schema: portalDataSchemas.testPostback,
        config: { portalAccess: 'portal.act', audit: 'partner.test_postback' },
      },
      async (req) =>
        sendTestPostback(
          { endpoints, audit },
          await partnerOf(portalPartner(req)),
          req.body?.event ?? 'lead.accepted',
          req.actor,
        ),
    );

    app.get(
      '/portal/api/endpoints',
      { schema: portalDataSchemas.endpoints, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const items = await Promise.all(DELIVERY_KINDS.map((kind) => endpoints.health(portalPartner(req), kind)));
        return { items: items.map(({ affiliate_id: _a, ...health }) => health) };
      },
    );

    app.post<{ Params: { kind: DeliveryKind } }>(
      '/portal/api/endpoints/:kind/resume',
      { schema: portalDataSchemas.resumeEndpoint, config: { portalAccess: 'portal.act', audit: 'endpoint.resume' } },
      async (req, reply) => {
        const { state, requested_at } = await resumeEndpoint(
          { endpoints, audit },
          portalPartner(req),
          req.params.kind,
          req.actor,
        );
        return reply.code(202).send({ kind: req.params.kind, state, requested_at });
      },
    );
  };
}

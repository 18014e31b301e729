import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import type { PartnerSettings } from '../../shared/schemas';
import { loadStatuses } from '../../shared/status-catalog';
import { affiliateBodySchemas, routeSchemas, type ROTATABLE_SECRETS } from '../api-schemas';
import type { PageRequest } from '../pagination';
import { partnerView } from '../partner-service';
import { settingsProblem } from '../partner-settings';
import type { ManagerServices } from '../services';
import { orNotFound, type IdParams } from './lookup';

// Partners (affiliates): create, read, change settings, rotate secrets, try the callback URL.
export interface AffiliateRouteDeps extends Pick<ManagerServices, 'partners' | 'audit' | 'endpoints'> {
  statusCatalogFile: string | null;
  allowHttp: boolean;
}

export function affiliateRoutes({ partners, audit, endpoints, statusCatalogFile, allowHttp }: AffiliateRouteDeps) {
  const statuses = loadStatuses(statusCatalogFile);
  const bodySchemas = affiliateBodySchemas(statuses.codes(), allowHttp);
  const checkSettings = (settings: PartnerSettings): void => {
    const problem = settingsProblem(settings, statuses, allowHttp);
    if (problem) throw new ApiError('invalid_request', { detail: problem });
  };

  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Body: PartnerSettings & { name: string } }>('/api/affiliates', { schema: bodySchemas.createAffiliate, config: { audit: 'partner.create' } }, async (req, reply) => {
      checkSettings(req.body);
      const { partner, secrets } = await partners.create(req.body);
      await audit.record(req.managerActor, 'partner.create', { partnerId: partner.id, details: { fields: Object.keys(req.body) } });
      return reply.code(201).send({ ...partner, ...secrets });
    });

    app.get<{ Querystring: PageRequest }>('/api/affiliates', { schema: routeSchemas.listAffiliates }, async (req) => partners.list(req.query));

    app.get<IdParams>('/api/affiliates/:id', { schema: routeSchemas.showAffiliate }, async (req) =>
      partnerView(orNotFound(await partners.find(req.params.id))));

    app.patch<IdParams & { Body: PartnerSettings }>('/api/affiliates/:id', { schema: bodySchemas.updateAffiliate, config: { audit: 'partner.update' } }, async (req) => {
      checkSettings(req.body);
      const partner = orNotFound(await partners.update(req.params.id, req.body));
      await audit.record(req.managerActor, 'partner.update', { partnerId: partner.id, details: { fields: Object.keys(req.body) } });
      return partner;
    });

    app.post<IdParams & { Body: { secrets?: (typeof ROTATABLE_SECRETS)[number][]; grace_seconds?: number } | undefined }>(
      '/api/affiliates/:id/rotate-key',
      { schema: routeSchemas.rotateKey, config: { audit: 'partner.rotate_key' } },
      async (req) => {
        const graceSeconds = req.body?.grace_seconds ?? 0;
        const rotated = orNotFound(await partners.rotate(req.params.id, req.body?.secrets ?? [], graceSeconds));
        await audit.record(req.managerActor, 'partner.rotate_key', {
          partnerId: req.params.id,
          details: { rotated: ['api_key', ...(req.body?.secrets ?? [])], grace_seconds: graceSeconds },
        });
        const graceUntil = graceSeconds > 0 ? new Date(rotated.key_rotated_at.getTime() + graceSeconds * 1000) : null;
        return { id: req.params.id, ...rotated, grace_until: graceUntil };
      },
    );

    app.post<IdParams>('/api/affiliates/:id/test-callback', { schema: routeSchemas.testCallback }, async (req) => {
      const partner = orNotFound(await partners.find(req.params.id));
      const noUrl = new ApiError('conflict', { detail: 'This partner has no callback_url; set one with PATCH first' });
      if (!partner.callback_url) throw noUrl;
      // Sent by the dispatcher that keeps the partner's endpoint, with the code real deliveries use.
      const sent = await endpoints.testCallback(partner._id, req.managerActor);
      if (sent.outcome === 'pending') throw new ApiError('command_pending', { command: 'test callback' }, { 'retry-after': '5' });
      if (sent.outcome === 'not_found') throw noUrl;
      const result = sent.result;
      await audit.record(req.managerActor, 'partner.test_callback', {
        partnerId: partner._id,
        details: { delivered: result.delivered, http_status: result.http_status, error: result.error },
      });
      return result;
    });
  };
}

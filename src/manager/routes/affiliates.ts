import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../shared/errors';
import type { LeadEvent, PartnerSettings } from '../../shared/schemas';
import {
  fillTemplate,
  MASKED_TOKEN,
  postbackFor,
  postbackMapping,
  postbackValues,
  templateProblem,
} from '../../shared/postbacks/postback-template';
import { sampleLeadEvent } from '../../shared/postbacks/sample-event';
import { loadStatuses } from '../../shared/status-catalog';
import { affiliateBodySchemas, routeSchemas, type ROTATABLE_SECRETS } from '../api-schemas';
import { documentedTemplateShape } from '../documented-urls';
import { postbackPreviewSchema } from '../postback-preview-schema';
import type { PageRequest } from '../pagination';
import { partnerView } from '../partner-service';
import { sendTestCallback, sendTestPostback } from '../endpoint-actions';
import { settingsProblem } from '../partner-settings';
import type { ManagerServices } from '../services';
import { orNotFound, type IdParams } from '../../shared/http/lookup';

// What the preview answers a draft template off the documented shape that the checks of a save take.
const DRAFT_SHAPE_PROBLEM =
  "is not in the template's documented shape: a host name or an IPv4 address, a port up to 65535, then URL characters, %XX escapes or {macro} names";

// Partners (affiliates): create, read, change settings, rotate secrets, try the callback URL and the
// postback templates.
export interface AffiliateRouteDeps extends Pick<ManagerServices, 'partners' | 'audit' | 'endpoints'> {
  statusCatalogFile: string | null;
  allowHttp: boolean;
}

export function affiliateRoutes({ partners, audit, endpoints, statusCatalogFile, allowHttp }: AffiliateRouteDeps) {
  const statuses = loadStatuses(statusCatalogFile);
  const bodySchemas = affiliateBodySchemas(statuses.codes(), allowHttp);
  const documentedShape = documentedTemplateShape(allowHttp);
  const checkSettings = (settings: PartnerSettings, tokenSet = false): void => {
    const problem = settingsProblem(settings, statuses, allowHttp, tokenSet);
    if (problem) throw new ApiError('invalid_request', { detail: problem });
  };
  // Whether the partner has a postback token once the settings are saved: a token given wins, else the stored one.
  const tokenSetAfter = async (id: string, patch: PartnerSettings): Promise<boolean> => {
    const given = patch.postbacks?.token;
    if (given !== undefined) return given !== null;
    if (!patch.postbacks) return false;
    return (await partners.find(id))?.postback_secret_enc !== undefined;
  };

  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Body: PartnerSettings & { name: string } }>(
      '/api/affiliates',
      { schema: bodySchemas.createAffiliate, config: { access: 'partners.create', audit: 'partner.create' } },
      async (req, reply) => {
        checkSettings(req.body, typeof req.body.postbacks?.token === 'string');
        const { partner, secrets } = await partners.create(req.body);
        await audit.record(req.actor, 'partner.create', {
          partnerId: partner.id,
          details: { fields: Object.keys(req.body) },
        });
        return reply.code(201).send({ ...partner, ...secrets });
      },
    );

    app.get<{ Querystring: PageRequest }>(
      '/api/affiliates',
      { schema: routeSchemas.listAffiliates, config: { access: 'partners.read' } },
      async (req) => partners.list(req.query, req.principal.partnerScope),
    );

    app.get<IdParams>(
      '/api/affiliates/:id',
      { schema: routeSchemas.showAffiliate, config: { access: 'partners.read', partnerParam: true } },
      async (req) => partnerView(orNotFound(await partners.find(req.params.id))),
    );

    app.patch<IdParams & { Body: PartnerSettings }>(
      '/api/affiliates/:id',
      {
        schema: bodySchemas.updateAffiliate,
        config: { access: 'partners.settings', partnerParam: true, audit: 'partner.update' },
      },
      async (req) => {
        checkSettings(req.body, await tokenSetAfter(req.params.id, req.body));
        const partner = orNotFound(await partners.update(req.params.id, req.body));
        await audit.record(req.actor, 'partner.update', {
          partnerId: partner.id,
          details: { fields: Object.keys(req.body) },
        });
        return partner;
      },
    );

    app.post<
      IdParams & { Body: { secrets?: (typeof ROTATABLE_SECRETS)[number][]; grace_seconds?: number } | undefined }
    >(
      '/api/affiliates/:id/rotate-key',
      {
        schema: routeSchemas.rotateKey,
        config: { access: 'partners.secrets', partnerParam: true, audit: 'partner.rotate_key' },
      },
      async (req) => {
        const graceSeconds = req.body?.grace_seconds ?? 0;
        const rotated = orNotFound(await partners.rotate(req.params.id, req.body?.secrets ?? [], graceSeconds));
        await audit.record(req.actor, 'partner.rotate_key', {
          partnerId: req.params.id,
          details: { rotated: ['api_key', ...(req.body?.secrets ?? [])], grace_seconds: graceSeconds },
        });
        const graceUntil = graceSeconds > 0 ? new Date(rotated.key_rotated_at.getTime() + graceSeconds * 1000) : null;
        return { id: req.params.id, ...rotated, grace_until: graceUntil };
      },
    );

    app.post<IdParams>(
      '/api/affiliates/:id/test-callback',
      { schema: routeSchemas.testCallback, config: { access: 'partners.test', partnerParam: true } },
      async (req) => {
        const partner = orNotFound(await partners.find(req.params.id));
        return sendTestCallback({ endpoints, audit }, partner, req.actor);
      },
    );

    app.post<IdParams & { Body: { event?: LeadEvent['event'] } | null }>(
      '/api/affiliates/:id/test-postback',
      { schema: routeSchemas.testPostback, config: { access: 'partners.test', partnerParam: true } },
      async (req) => {
        const partner = orNotFound(await partners.find(req.params.id));
        return sendTestPostback({ endpoints, audit }, partner, req.body?.event ?? 'lead.accepted', req.actor);
      },
    );

    // The URL a template yields for the sample lead, checked as a save would check it; the token masked.
    app.post<IdParams & { Body: PreviewBody }>(
      '/api/affiliates/:id/postback-preview',
      { schema: postbackPreviewSchema(allowHttp), config: { access: 'partners.test', partnerParam: true } },
      async (req) => {
        const partner = orNotFound(await partners.find(req.params.id));
        const event = req.body.event ?? 'lead.accepted';
        const saved = postbackFor(partner.postbacks, partner.status_mapping, event);
        const template = req.body.template ?? saved?.template;
        if (!template)
          throw new ApiError('conflict', {
            detail: `This partner has no postback template for ${event}; give one as template`,
          });
        const problem =
          templateProblem(template, { allowHttp, tokenSet: partner.postback_secret_enc !== undefined }) ??
          (req.body.template === undefined || documentedShape(template) ? null : DRAFT_SHAPE_PROBLEM);
        if (problem) throw new ApiError('invalid_request', { detail: `/template ${problem}` });
        const mapping = req.body.status_mapping ?? postbackMapping(partner.postbacks, partner.status_mapping, event);
        const { masked } = fillTemplate(
          template,
          postbackValues(sampleLeadEvent(partner._id, event, new Date(), 'preview'), mapping, MASKED_TOKEN),
        );
        return { url: masked, event };
      },
    );
  };
}

interface PreviewBody {
  template?: string;
  event?: LeadEvent['event'];
  status_mapping?: Record<string, string>;
}

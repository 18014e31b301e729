import type { FastifyInstance } from 'fastify';
import type { PartnerDoc } from '../../../shared/mongo/documents';
import type { CursorRequest } from '../../../manager/pagination';
import type { PartnerLeadQuery } from '../partner-reads';
import { orNotFound, type IdParams } from '../../../shared/http/lookup';
import { portalDataSchemas } from './portal-schemas';
import { portalLead } from './portal-views';
import type { PortalDeps } from './portal-deps';
import { portalPartner } from '../../../identity/principal';

type LeadQuery = PartnerLeadQuery & CursorRequest;

type Deps = Pick<PortalDeps, 'leads' | 'reads' | 'phones' | 'partners' | 'statuses'>;

// The partner's leads as PartnerReads reads them (the lead list read model, scoped to the partner),
// and one lead with the events it was told of.
export function leadRoutes(d: Deps) {
  const mappingOf = async (partnerId: string): Promise<Pick<PartnerDoc, 'status_mapping'>> =>
    (await d.partners.find(partnerId)) ?? { status_mapping: {} };

  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: LeadQuery }>(
      '/portal/api/leads',
      { schema: portalDataSchemas.listLeads, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const partnerId = portalPartner(req);
        const { limit, cursor, ...filters } = req.query;
        const partner = { _id: partnerId, ...(await mappingOf(partnerId)) };
        return d.reads.leads(partner, filters, { limit, cursor });
      },
    );

    // What the list's status filter offers: the installation's catalogue, in the partner's words too.
    app.get(
      '/portal/api/statuses',
      { schema: portalDataSchemas.statuses, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const { status_mapping: mapping } = await mappingOf(portalPartner(req));
        return { statuses: d.statuses.codes().map((code) => ({ code, yours: mapping?.[code] ?? code })) };
      },
    );

    app.get<IdParams>(
      '/portal/api/leads/:id',
      { schema: portalDataSchemas.showLead, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const doc = await d.leads.doc(req.params.id);
        // Another partner's lead is as unknown as one that does not exist.
        const lead = orNotFound(doc && doc.partner_id === portalPartner(req) ? doc : null);
        const [view, phones, partner] = await Promise.all([
          d.leads.withDeliveries(lead),
          d.phones.of([lead]),
          mappingOf(lead.partner_id),
        ]);
        return portalLead(view, phones.get(lead._id) ?? null, partner);
      },
    );
  };
}

import type { FastifyInstance } from 'fastify';
import { findByIds } from '../../../shared/mongo/bulk';
import type { PartnerDoc } from '../../../shared/mongo/documents';
import type { LeadRow } from '../../lead-list';
import type { CursorPage, CursorRequest } from '../../pagination';
import { orNotFound, type IdParams } from '../../routes/lookup';
import { portalDataSchemas } from './portal-schemas';
import { portalLead, portalLeadRow, type LeadExtras } from './portal-views';
import type { PortalDeps } from './portal-deps';

interface LeadQuery extends CursorRequest {
  status?: string;
  country?: string;
  source?: string;
  external_id?: string;
  from?: string;
  to?: string;
}

type Deps = Pick<PortalDeps, 'leads' | 'leadList' | 'leadDocs' | 'phones' | 'partners'>;

// The partner's leads from the manager's lead list read model, its partner as the scope; each row
// with its masked number and rejection reason (one read by _id for the page).
export function leadRoutes(d: Deps) {
  const extrasOf = async (rows: readonly LeadRow[]): Promise<Map<string, LeadExtras>> => {
    const docs = await findByIds(d.leadDocs, rows.map((r) => r.id), { projection: { _id: 1, created_at: 1, phone_enc: 1, reason: 1 } });
    const phones = await d.phones.of([...docs.values()]);
    return new Map(rows.map((r) => [r.id, { phone: phones.get(r.id) ?? null, reason: docs.get(r.id)?.reason ?? null }]));
  };
  const mappingOf = async (partnerId: string): Promise<Pick<PartnerDoc, 'status_mapping'>> => (await d.partners.find(partnerId)) ?? { status_mapping: {} };

  // By the partner's own external id: its one lead (or none), through the status lookup's point read.
  const byExternalId = async (partnerId: string, externalId: string): Promise<CursorPage<LeadRow>> => {
    const lead = await d.leads.byExternalId(partnerId, externalId);
    if (!lead || lead.affiliate_id !== partnerId) return { items: [], next_cursor: null };
    const { details: { country_code: country, source }, ...rest } = lead;
    return { items: [{ ...rest, country_code: country ?? null, source: source ?? null }], next_cursor: null };
  };

  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: LeadQuery }>('/portal/api/leads', { schema: portalDataSchemas.listLeads, config: { portalAccess: 'portal.read' } }, async (req) => {
      const partnerId = req.portal.partnerId;
      const q = req.query;
      const page = q.external_id !== undefined
        ? await byExternalId(partnerId, q.external_id)
        : await d.leadList.page({ affiliate_id: partnerId, status: q.status, country_code: q.country, source: q.source, from: q.from, to: q.to }, q, new Set([partnerId]));
      const [extras, partner] = await Promise.all([extrasOf(page.items), mappingOf(partnerId)]);
      return { items: page.items.map((row) => portalLeadRow(row, extras.get(row.id)!, partner)), next_cursor: page.next_cursor };
    });

    app.get<IdParams>('/portal/api/leads/:id', { schema: portalDataSchemas.showLead, config: { portalAccess: 'portal.read' } }, async (req) => {
      const doc = await d.leads.doc(req.params.id);
      // Another partner's lead is as unknown as one that does not exist.
      const lead = orNotFound(doc && doc.partner_id === req.portal.partnerId ? doc : null);
      const [view, phones, partner] = await Promise.all([d.leads.withDeliveries(lead), d.phones.of([lead]), mappingOf(lead.partner_id)]);
      return portalLead(view, phones.get(lead._id) ?? null, partner);
    });
  };
}

import type { FastifyInstance } from 'fastify';
import { findByIds } from '../../../shared/mongo/bulk';
import type { LeadDoc, PartnerDoc } from '../../../shared/mongo/documents';
import type { LeadRow } from '../../lead-list';
import type { CursorPage, CursorRequest } from '../../pagination';
import { orNotFound, type IdParams } from '../../routes/lookup';
import { portalDataSchemas } from './portal-schemas';
import { portalLead, portalLeadRow } from './portal-views';
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

// What a row adds to the manager's: its masked phone (opened from phone_enc) and its reason.
const EXTRA_FIELDS = ['_id', 'created_at', 'phone_enc', 'reason'] as const;
type Listed = { row: LeadRow; doc: Pick<LeadDoc, (typeof EXTRA_FIELDS)[number]> };
const EXTRA_PROJECTION = Object.fromEntries(EXTRA_FIELDS.map((f) => [f, 1]));

// The partner's leads from the manager's lead list read model, its partner as the scope; each row
// with its masked number and rejection reason, read with the row (one read of the page's leads).
export function leadRoutes(d: Deps) {
  const listed = async (partnerId: string, q: LeadQuery): Promise<CursorPage<Listed>> => {
    if (q.external_id === undefined) {
      return d.leadList.pageWith(
        {
          affiliate_id: partnerId,
          status: q.status,
          country_code: q.country,
          source: q.source,
          from: q.from,
          to: q.to,
        },
        q,
        new Set([partnerId]),
        EXTRA_FIELDS,
      );
    }
    const page = await byExternalId(partnerId, q.external_id);
    const docs = await findByIds(
      d.leadDocs,
      page.items.map((r) => r.id),
      { projection: EXTRA_PROJECTION },
    );
    return {
      items: page.items.map((row) => ({
        row,
        doc: docs.get(row.id) ?? { _id: row.id, created_at: row.created_at, reason: null },
      })),
      next_cursor: null,
    };
  };
  const mappingOf = async (partnerId: string): Promise<Pick<PartnerDoc, 'status_mapping'>> =>
    (await d.partners.find(partnerId)) ?? { status_mapping: {} };

  // By the partner's own external id: its one lead (or none), through the status lookup's point read.
  const byExternalId = async (partnerId: string, externalId: string): Promise<CursorPage<LeadRow>> => {
    const lead = await d.leads.byExternalId(partnerId, externalId);
    if (!lead || lead.affiliate_id !== partnerId) return { items: [], next_cursor: null };
    const {
      details: { country_code: country, source },
      ...rest
    } = lead;
    return { items: [{ ...rest, country_code: country ?? null, source: source ?? null }], next_cursor: null };
  };

  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: LeadQuery }>(
      '/portal/api/leads',
      { schema: portalDataSchemas.listLeads, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const partnerId = req.portal.partnerId;
        const page = await listed(partnerId, req.query);
        const [phones, partner] = await Promise.all([d.phones.of(page.items.map((i) => i.doc)), mappingOf(partnerId)]);
        return {
          items: page.items.map(({ row, doc }) =>
            portalLeadRow(row, { phone: phones.get(row.id) ?? null, reason: doc.reason ?? null }, partner),
          ),
          next_cursor: page.next_cursor,
        };
      },
    );

    app.get<IdParams>(
      '/portal/api/leads/:id',
      { schema: portalDataSchemas.showLead, config: { portalAccess: 'portal.read' } },
      async (req) => {
        const doc = await d.leads.doc(req.params.id);
        // Another partner's lead is as unknown as one that does not exist.
        const lead = orNotFound(doc && doc.partner_id === req.portal.partnerId ? doc : null);
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

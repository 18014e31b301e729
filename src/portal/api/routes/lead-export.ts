import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { zonedDateTime } from '../../../shared/local-time';
import { csvCell } from '../../../manager/reports/report-csv';
import type { Partner, PartnerLeadQuery, PartnerLeadRow, PartnerReads } from '../partner-reads';
import { exportRange } from './lead-export-range';
import { portalDataSchemas } from './portal-schemas';
import type { PortalDeps } from './portal-deps';
import { portalPartner } from '../../../identity/principal';

type ExportQuery = PartnerLeadQuery & { from: string; to: string };
type Deps = Pick<PortalDeps, 'reads' | 'audit' | 'partners' | 'zoneOf'>;

const COLUMNS: readonly (keyof PartnerLeadRow)[] = [
  'id',
  'external_id',
  'status',
  'our_status',
  'is_depositor',
  'reason',
  'country',
  'source',
  'phone',
  'test',
  'created_at',
  'updated_at',
];
// Rows read at a time: one page of the list read model, written before the next is read.
const PAGE = 200;

// Times in the person's zone, with its offset.
const line = (cells: readonly unknown[], zone: string): string =>
  `${cells.map((c) => csvCell(c instanceof Date ? zonedDateTime(c, zone) : c)).join(',')}\r\n`;

// The list's pages one after another, each written as it is read: the stream pulls the next page
// only when the client has taken the last (a slow or gone client stops the reading), so memory
// holds one page whatever the range holds.
export async function* leadCsv(
  reads: PartnerReads,
  partner: Partner,
  q: PartnerLeadQuery,
  zone: string,
): AsyncGenerator<string> {
  yield line(COLUMNS, zone);
  let cursor: string | undefined;
  do {
    const page = await reads.leads(partner, q, { limit: PAGE, cursor });
    if (page.items.length > 0)
      yield page.items
        .map((row) =>
          line(
            COLUMNS.map((c) => row[c]),
            zone,
          ),
        )
        .join('');
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

// GET /portal/api/leads.csv: what the lead list shows for the same filters, over a bounded range;
// who exported which filters is in the audit log (the filters' names and the range, not their values).
export function leadExportRoutes(d: Deps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: ExportQuery }>(
      '/portal/api/leads.csv',
      { schema: portalDataSchemas.exportLeads, config: { portalAccess: 'portal.read' } },
      async (req, reply) => {
        const { from, to } = req.query;
        exportRange(from, to);
        const partnerId = portalPartner(req);
        const partner = { _id: partnerId, status_mapping: (await d.partners.find(partnerId))?.status_mapping ?? {} };
        const zone = await d.zoneOf(req.principal.id, partnerId);
        await d.audit.record(req.actor, 'lead.export', {
          partnerId,
          details: { from, to, filters: Object.keys(req.query).filter((k) => k !== 'from' && k !== 'to') },
        });
        const name = `leads-${from.slice(0, 10)}-${to.slice(0, 10)}.csv`;
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}"`)
          .send(Readable.from(leadCsv(d.reads, partner, req.query, zone)));
      },
    );
  };
}

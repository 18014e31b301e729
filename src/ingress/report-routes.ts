import type { FastifyInstance } from 'fastify';
import { CURSOR_QUERY, DAY_RANGE, LEAD_FILTERS, type PartnerLeadQuery, type PartnerReads } from '../manager/commands';
import { boundedRead } from '../shared/mongo/bounded-read';
import { answer, authenticated } from './partner-context';

export interface ReportRouteDeps {
  reads: PartnerReads;
  // How long a call's reads may take before the partner gets 503 (the intake reply timeout).
  readTimeoutMs: number;
}

type LeadsQuery = PartnerLeadQuery & { limit: number; cursor?: string };
type DaysQuery = { from?: string; to?: string };

const query = (properties: Record<string, Record<string, unknown>>) => ({
  type: 'object',
  additionalProperties: false,
  properties,
});
export const LEADS_QUERY = query({ ...LEAD_FILTERS, ...CURSOR_QUERY });
export const REPORTS_QUERY = query(DAY_RANGE);

// GET /leads and GET /reports: the calling partner's own leads (masked, cursor pages, the portal's
// filters) and its traffic per day, read as its portal reads them; the partner is the scope, so no
// query can name another's. They count in the reporting window (at the status lookup's quota).
// Their reads are bounded as the status lookup's are: a MongoDB that does not answer gets a 503.
export function reportRoutes(deps: ReportRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: LeadsQuery }>(
      '/leads',
      { schema: { querystring: LEADS_QUERY }, config: { endpoint: 'reports' } },
      async (req, reply) => {
        const { limit, cursor, ...filters } = req.query;
        const partner = authenticated(req);
        const page = await boundedRead(deps.readTimeoutMs, 'lead list', (signal) =>
          deps.reads.leads(partner, filters, { limit, cursor }, signal),
        );
        return answer(req, reply, 200, page);
      },
    );

    app.get<{ Querystring: DaysQuery }>(
      '/reports',
      { schema: { querystring: REPORTS_QUERY }, config: { endpoint: 'reports' } },
      async (req, reply) => {
        const partnerId = authenticated(req)._id;
        const report = await boundedRead(deps.readTimeoutMs, 'report', (signal) =>
          deps.reads.byDay(partnerId, req.query, new Date(), signal),
        );
        return answer(req, reply, 200, report);
      },
    );
  };
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { reportCsv } from '../../../manager/reports/report-csv';
import { readReport } from '../../../manager/reports/report-reader';
import { localTime } from '../../../shared/local-time';
import type { CellStore } from '../../../shared/reports/cell-store';
import { portalDataSchemas } from './portal-schemas';
import { portalTotals } from './portal-views';
import type { PortalDeps } from './portal-deps';
import { portalPartner } from '../../../identity/principal';

type DaysQuery = { Querystring: { days: 1 | 7 | 30; from?: string; to?: string } };

const DAY_MS = 86_400_000;
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

// The days an overview covers: today, or the last 7 or 30 days up to today (today in the person's
// time zone); or the days the partner chose (from, to: the report's own defaults and limits fill in
// and check them).
export function overviewRange(
  q: DaysQuery['Querystring'],
  now: Date,
  zone: string,
): { from: string | undefined; to: string | undefined } {
  if (q.from !== undefined || q.to !== undefined) return { from: q.from, to: q.to };
  const today = Date.parse(localTime(now, zone).date);
  return { from: utcDay(today - (q.days - 1) * DAY_MS), to: utcDay(today) };
}

// The partner's own traffic from the reports read model (the manager's reports, scoped to it).
async function readOverview(cells: CellStore, partnerId: string, q: DaysQuery['Querystring'], now: Date, zone: string) {
  const range = overviewRange(q, now, zone);
  const scope = new Set([partnerId]);
  const [byDay, bySource, byCountry] = await Promise.all(
    ['day', 'source', 'country'].map((group_by) => readReport(cells, { ...range, group_by }, now, scope)),
  );
  const { from, to } = byDay!;
  return {
    days: (Date.parse(to) - Date.parse(from)) / DAY_MS + 1,
    from,
    to,
    time_zone: zone,
    totals: portalTotals(byDay!.totals),
    by_day: byDay!.rows.map((r) => ({ day: r.day as string, ...portalTotals(r) })),
    by_source: bySource!.rows.map((r) => ({ source: r.source ?? null, ...portalTotals(r) })),
    by_country: byCountry!.rows.map((r) => ({ country: r.country ?? null, ...portalTotals(r) })),
  };
}

export function overviewRoutes({ cells, zoneOf }: Pick<PortalDeps, 'cells' | 'zoneOf'>) {
  const zone = (req: FastifyRequest) => zoneOf(req.principal.id, portalPartner(req));
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<DaysQuery>(
      '/portal/api/overview',
      { schema: portalDataSchemas.overview, config: { portalAccess: 'portal.read' } },
      async (req) => readOverview(cells, portalPartner(req), req.query, new Date(), await zone(req)),
    );

    // Per day, as the manager's report CSV writes it (cells safe in a spreadsheet).
    app.get<DaysQuery>(
      '/portal/api/overview.csv',
      { schema: portalDataSchemas.overviewCsv, config: { portalAccess: 'portal.read' } },
      async (req, reply) => {
        const now = new Date();
        const range = overviewRange(req.query, now, await zone(req));
        const report = await readReport(cells, { ...range, group_by: 'day' }, now, new Set([portalPartner(req)]));
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="overview-${report.from}-${report.to}.csv"`)
          .send(reportCsv(report, report.group_by));
      },
    );
  };
}

import type { FastifyInstance } from 'fastify';
import { reportCsv } from '../reports/report-csv';
import { readReport, type ReportQuery } from '../reports/report-reader';
import { reportSchemas } from '../reports/report-schemas';
import type { ManagerServices } from '../services';

// The reports: read from the counters the processor keeps (report_cells), one `_id` range a query.
export function reportRoutes({ cells }: Pick<ManagerServices, 'cells'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: ReportQuery }>(
      '/api/reports',
      { schema: reportSchemas.report, config: { access: 'reports.read' } },
      async (req) => readReport(cells, req.query, new Date(), req.principal.partnerScope),
    );

    app.get<{ Querystring: ReportQuery }>(
      '/api/reports.csv',
      { schema: reportSchemas.reportCsv, config: { access: 'reports.read' } },
      async (req, reply) => {
        const report = await readReport(cells, req.query, new Date(), req.principal.partnerScope);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="report-${report.from}-${report.to}.csv"`)
          .send(reportCsv(report, report.group_by));
      },
    );
  };
}

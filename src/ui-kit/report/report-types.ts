// The answer of GET /api/reports (src/manager/reports/report-schemas.ts), typed by the server's own
// row types (type-only: nothing of the server is bundled).
import type { Dimension, Figures, ReportRow } from '../../manager/reports/report-rows';

export type { Dimension, Figures, ReportRow };
// The group-by choices the page offers, in the server's order (a value: the server's module is not bundled).
export const DIMENSIONS = ['partner', 'country', 'source', 'day'] as const satisfies readonly Dimension[];

export const REJECTION_GROUPS = ['country', 'source', 'ip', 'risk', 'cap', 'other'] as const;

export interface Report {
  from: string;
  to: string;
  group_by: Dimension[];
  rows: ReportRow[];
  totals: Figures;
}

import { REJECTION_GROUPS } from '../../shared/reports/cell-counts';
import type { Dimension, Figures, Grouped, ReportRow } from './report-rows';

// The report as CSV (RFC 4180, CRLF), with the same numbers as the JSON: one line per row, then a
// "total" line. Safe to open in a spreadsheet: a cell starting with =, +, -, @, tab or CR would be
// read as a formula, so it gets a leading single quote (OWASP "CSV injection").
const DIM_COLUMNS: Record<Dimension, keyof ReportRow> = {
  partner: 'partner_id',
  country: 'country',
  source: 'source',
  day: 'day',
};

const FIGURE_COLUMNS: readonly (keyof Figures | `rejected_${string}`)[] = [
  'received',
  'accepted',
  'duplicates',
  'validation_errors',
  'rejected',
  ...REJECTION_GROUPS.map((g) => `rejected_${g}` as const),
  'contacted',
  'ftd',
  'rtd',
  'chargebacks',
  'accepted_share',
  'contact_rate',
  'ftd_conversion',
  'chargeback_rate',
  'median_seconds_to_contact',
  'median_seconds_to_ftd',
];

export function neutralise(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = neutralise(String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function figureOf(f: Figures, column: string): unknown {
  if (column.startsWith('rejected_') && column !== 'rejected')
    return f.rejected_by_reason[column.slice('rejected_'.length) as keyof Figures['rejected_by_reason']];
  return f[column as keyof Figures];
}

export function reportCsv(report: Grouped, groupBy: readonly Dimension[]): string {
  const dims = groupBy.map((d) => DIM_COLUMNS[d]);
  const lines = [[...dims, ...FIGURE_COLUMNS].map(csvCell).join(',')];
  // Without dimensions the one row is the total: it is written once, as the total line.
  if (dims.length > 0)
    for (const row of report.rows)
      lines.push([...dims.map((d) => row[d]), ...FIGURE_COLUMNS.map((c) => figureOf(row, c))].map(csvCell).join(','));
  const label = dims.length > 0 ? ['total', ...dims.slice(1).map(() => '')] : [];
  lines.push([...label, ...FIGURE_COLUMNS.map((c) => figureOf(report.totals, c))].map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

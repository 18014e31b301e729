import {
  addCounts,
  medianSeconds,
  REJECTION_GROUPS,
  type Counts,
  type RejectionGroup,
} from '../../shared/reports/cell-counts';
import { parseCellField } from '../../shared/reports/cell-keys';

// The report's rows: counter documents summed in memory by the chosen dimensions. Pure.
export const DIMENSIONS = ['partner', 'country', 'source', 'day'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface ReportFilter {
  affiliate_id?: string;
  country?: string;
  source?: string;
}

// One cell of one counter document, with the dimensions it stands for (`day`: the day, or the month
// of a month document, read only when the report is not grouped by day).
export interface CellRecord {
  key: { partnerId: string; day: string };
  field: string;
  counts: Counts;
}

export interface Figures {
  received: number;
  accepted: number;
  duplicates: number;
  validation_errors: number;
  rejected: number;
  rejected_by_reason: Record<RejectionGroup, number>;
  contacted: number;
  ftd: number;
  rtd: number;
  chargebacks: number;
  accepted_share: number | null; // accepted / received
  contact_rate: number | null; // contacted / accepted
  ftd_conversion: number | null; // ftd / accepted
  chargeback_rate: number | null; // chargebacks / ftd
  median_seconds_to_contact: number | null; // upper bound of the histogram bucket holding the median
  median_seconds_to_ftd: number | null;
}

export interface ReportRow extends Figures {
  partner_id?: string;
  country?: string | null;
  source?: string | null;
  day?: string;
}

export interface Grouped {
  rows: ReportRow[];
  totals: Figures;
}

interface Dims {
  partner_id: string;
  country: string | null;
  source: string | null;
  day: string;
}

function dimsOf(cell: CellRecord): Dims {
  const { country, source } = parseCellField(cell.field);
  return { partner_id: cell.key.partnerId, country, source, day: cell.key.day };
}

export function matches(dims: Dims, f: ReportFilter): boolean {
  return (
    (f.affiliate_id === undefined || dims.partner_id === f.affiliate_id) &&
    (f.country === undefined || dims.country === f.country) &&
    (f.source === undefined || dims.source === f.source)
  );
}

const FIELD_OF: Record<Dimension, keyof Dims> = {
  partner: 'partner_id',
  country: 'country',
  source: 'source',
  day: 'day',
};

// Sums the cells that pass the filter into one row per combination of the grouped dimensions
// (every document of a partner adds up), sorted by those dimensions; totals of everything.
export function groupCells(cells: Iterable<CellRecord>, groupBy: readonly Dimension[], filter: ReportFilter): Grouped {
  const groups = new Map<string, { dims: Partial<Dims>; counts: Counts }>();
  const all: Counts = {};
  for (const cell of cells) {
    const dims = dimsOf(cell);
    if (!matches(dims, filter)) continue;
    const picked: Partial<Dims> = {};
    for (const d of groupBy) Object.assign(picked, { [FIELD_OF[d]]: dims[FIELD_OF[d]] });
    const key = JSON.stringify(groupBy.map((d) => dims[FIELD_OF[d]]));
    let group = groups.get(key);
    if (!group) {
      group = { dims: picked, counts: {} };
      groups.set(key, group);
    }
    addCounts(group.counts, cell.counts);
    addCounts(all, cell.counts);
  }
  const rows = [...groups.values()]
    .sort((a, b) => compareDims(a.dims, b.dims, groupBy))
    .map(({ dims, counts }) => ({ ...dims, ...figures(counts) }));
  return { rows, totals: figures(all) };
}

function compareDims(a: Partial<Dims>, b: Partial<Dims>, groupBy: readonly Dimension[]): number {
  for (const d of groupBy) {
    const x = a[FIELD_OF[d]] ?? '';
    const y = b[FIELD_OF[d]] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

const rate = (part: number, whole: number): number | null =>
  whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;

export function figures(c: Readonly<Counts>): Figures {
  const n = (k: string) => c[k] ?? 0;
  const byReason = Object.fromEntries(REJECTION_GROUPS.map((g) => [g, n(`rejected_${g}`)])) as Record<
    RejectionGroup,
    number
  >;
  const rejected = Object.values(byReason).reduce((a, b) => a + b, 0);
  const accepted = n('accepted');
  return {
    // Received is every answered intake request the reports heard of: accepted + rejected +
    // duplicates + validation errors.
    received: n('received'),
    accepted,
    duplicates: n('duplicates'),
    validation_errors: n('validation_errors'),
    rejected,
    rejected_by_reason: byReason,
    contacted: n('contacted'),
    ftd: n('ftd'),
    rtd: n('rtd'),
    chargebacks: n('chargebacks'),
    accepted_share: rate(accepted, n('received')),
    contact_rate: rate(n('contacted'), accepted),
    ftd_conversion: rate(n('ftd'), accepted),
    chargeback_rate: rate(n('chargebacks'), n('ftd')),
    median_seconds_to_contact: medianSeconds(c, 'tc'),
    median_seconds_to_ftd: medianSeconds(c, 'tf'),
  };
}

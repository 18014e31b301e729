import { ApiError } from '../../shared/errors';
import { cellsOf, type CellStore } from '../../shared/reports/cell-store';
import { DAY_PATTERN, parseCellDocId } from '../../shared/reports/cell-keys';
import { DIMENSIONS, groupCells, type CellRecord, type Dimension, type Grouped, type ReportFilter } from './report-rows';

export interface ReportQuery extends ReportFilter {
  from?: string;
  to?: string;
  group_by?: string;
}

export interface Report extends Grouped {
  from: string;
  to: string;
  group_by: Dimension[];
}

const DAY_MS = 86_400_000;
export const DEFAULT_DAYS = 7;
export const MAX_DAYS = 366;

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function parseDay(name: string, value: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (!DAY_PATTERN.test(value) || Number.isNaN(ms) || utcDay(ms) !== value) throw new ApiError('invalid_request', { detail: `${name} "${value}" is not a calendar day (YYYY-MM-DD)` });
  return ms;
}

// The days and dimensions a query asks for: by default the last DEFAULT_DAYS days up to today (UTC),
// at most MAX_DAYS at once.
export function reportScope(q: ReportQuery, now: Date): { from: string; to: string; groupBy: Dimension[] } {
  const toMs = q.to === undefined ? parseDay('to', utcDay(now.getTime())) : parseDay('to', q.to);
  const fromMs = q.from === undefined ? toMs - (DEFAULT_DAYS - 1) * DAY_MS : parseDay('from', q.from);
  if (fromMs > toMs) throw new ApiError('invalid_request', { detail: 'from is after to' });
  if ((toMs - fromMs) / DAY_MS + 1 > MAX_DAYS) throw new ApiError('invalid_request', { detail: `a report spans at most ${MAX_DAYS} days` });
  const groupBy = q.group_by === undefined || q.group_by === '' ? [] : q.group_by.split(',');
  for (const d of groupBy) if (!(DIMENSIONS as readonly string[]).includes(d)) throw new ApiError('invalid_request', { detail: `group_by "${d}" is not one of ${DIMENSIONS.join(', ')}` });
  return { from: utcDay(fromMs), to: utcDay(toMs), groupBy: [...new Set(groupBy)] as Dimension[] };
}

// A report over days `from` to `to`: every counter document of those days (one `_id` range; each
// day is the partner's own), summed in memory.
export async function readReport(cells: CellStore, q: ReportQuery, now: Date): Promise<Report> {
  const { from, to, groupBy } = reportScope(q, now);
  const records: CellRecord[] = [];
  for await (const page of cells.days(from, to)) {
    for (const doc of page) {
      const key = parseCellDocId(doc._id);
      for (const [field, counts] of Object.entries(cellsOf(doc))) records.push({ key, field, counts });
    }
  }
  const filter: ReportFilter = {};
  if (q.affiliate_id !== undefined) filter.affiliate_id = q.affiliate_id;
  if (q.country !== undefined) filter.country = q.country;
  if (q.source !== undefined) filter.source = q.source;
  return { from, to, group_by: groupBy, ...groupCells(records, groupBy, filter) };
}

export const OVERVIEW_DAYS = 14;

// The overview's trend: the last OVERVIEW_DAYS days, one row per day.
export async function dayTrend(cells: CellStore, now: Date): Promise<Pick<Report, 'from' | 'to' | 'rows'>> {
  const to = utcDay(now.getTime());
  const { from, rows } = await readReport(cells, { from: utcDay(now.getTime() - (OVERVIEW_DAYS - 1) * DAY_MS), to, group_by: 'day' }, now);
  return { from, to, rows };
}

import { ApiError } from '../../shared/errors';
import { allCellsOf, type CellDoc, type CellStore } from '../../shared/reports/cell-store';
import { cellDocId, DAY_PATTERN, parseCellDocId, type BlockSize, type Level } from '../../shared/reports/cell-keys';
import { ALL_PARTNERS, partnersToRead, type PartnerScope } from '../partner-scope';
import {
  DIMENSIONS,
  groupCells,
  type CellRecord,
  type Dimension,
  type Grouped,
  type ReportFilter,
} from './report-rows';

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
// Why a range of days is refused: rules between from and to, which the document gives as 422 examples.
export const RANGE_PROBLEMS = {
  from_after_to: 'from is after to',
  too_many_days: `a report spans at most ${MAX_DAYS} days`,
} as const;

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function parseDay(name: string, value: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (!DAY_PATTERN.test(value) || Number.isNaN(ms) || utcDay(ms) !== value)
    throw new ApiError('invalid_request', { detail: `${name} "${value}" is not a calendar day (YYYY-MM-DD)` });
  return ms;
}

// The days and dimensions a query asks for: by default the last DEFAULT_DAYS days up to today (UTC),
// at most MAX_DAYS at once.
export function reportScope(q: ReportQuery, now: Date): { from: string; to: string; groupBy: Dimension[] } {
  const toMs = q.to === undefined ? parseDay('to', utcDay(now.getTime())) : parseDay('to', q.to);
  const fromMs = q.from === undefined ? toMs - (DEFAULT_DAYS - 1) * DAY_MS : parseDay('from', q.from);
  if (fromMs > toMs) throw new ApiError('invalid_request', { detail: RANGE_PROBLEMS.from_after_to });
  if ((toMs - fromMs) / DAY_MS + 1 > MAX_DAYS)
    throw new ApiError('invalid_request', { detail: RANGE_PROBLEMS.too_many_days });
  const groupBy = q.group_by === undefined || q.group_by === '' ? [] : q.group_by.split(',');
  for (const d of groupBy)
    if (!(DIMENSIONS as readonly string[]).includes(d))
      throw new ApiError('invalid_request', { detail: `group_by "${d}" is not one of ${DIMENSIONS.join(', ')}` });
  return { from: utcDay(fromMs), to: utcDay(toMs), groupBy: [...new Set(groupBy)] as Dimension[] };
}

export interface PlanPart {
  level: Level;
  from: string;
  to: string;
}

// A level coarser than a day: where its units start, and the next unit's start.
interface Span {
  level: Level;
  startAtOrAfter(ms: number): number;
  next(start: number): number;
  unit(start: number): string;
}

const MONTHS: Span = {
  level: 'm',
  startAtOrAfter: (ms) => (new Date(ms).getUTCDate() === 1 ? ms : MONTHS.next(ms)),
  next: (ms) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth() + 1, 1),
  unit: (ms) => utcDay(ms).slice(0, 7),
};

const blocks = (size: BlockSize): Span => ({
  level: `b${size}`,
  startAtOrAfter: (ms) => Math.ceil(ms / (size * DAY_MS)) * size * DAY_MS,
  next: (ms) => ms + size * DAY_MS,
  unit: utcDay,
});

const SPANS: readonly Span[] = [MONTHS, blocks(16), blocks(4)];

// The `_id` ranges a report of days `from` to `to` reads: the whole months inside from month
// documents, the whole blocks of 16 then of 4 days inside what is left at either end from block
// documents, the days left from day documents; every day from day documents when the report is
// grouped by day; the totals documents of each level (`t<level>`) when it needs no country or
// source. Pure.
export function readPlan(from: string, to: string, byDay: boolean, totals = false): PlanPart[] {
  const parts = cover(Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T00:00:00Z`), byDay ? [] : SPANS);
  return totals ? parts.map((p) => ({ ...p, level: `t${p.level}` as Level })) : parts;
}

function cover(fromMs: number, toMs: number, spans: readonly Span[]): PlanPart[] {
  if (fromMs > toMs) return [];
  const [span, ...finer] = spans;
  if (!span) return [{ level: 'd', from: utcDay(fromMs), to: utcDay(toMs) }];
  const first = span.startAtOrAfter(fromMs);
  let last = -1;
  for (let start = first; span.next(start) - DAY_MS <= toMs; start = span.next(start)) last = start;
  if (last === -1) return cover(fromMs, toMs, finer);
  return [
    ...cover(fromMs, first - DAY_MS, finer),
    { level: span.level, from: span.unit(first), to: span.unit(last) },
    ...cover(span.next(last), toMs, finer),
  ];
}

// The units of a plan part, first to last: its days, its blocks' first days or its months.
export function unitsOf(part: PlanPart): string[] {
  const level = part.level.replace(/^t/, '');
  const span = level === 'm' ? MONTHS : level === 'd' ? null : blocks(Number(level.slice(1)) as BlockSize);
  const start = (unit: string): number => Date.parse(`${unit.length === 7 ? `${unit}-01` : unit}T00:00:00Z`);
  const units: string[] = [];
  for (let ms = start(part.from); ms <= start(part.to); ms = span ? span.next(ms) : ms + DAY_MS)
    units.push(span ? span.unit(ms) : utcDay(ms));
  return units;
}

// The counter documents of a plan part: every partner's in one `_id` range, or a few partners'
// (a filter, an affiliate manager's scope) by `_id`, one per partner and unit.
async function* partDocs(
  cells: CellStore,
  part: PlanPart,
  partners: string[] | null,
  signal?: AbortSignal,
): AsyncGenerator<CellDoc[]> {
  if (partners === null) {
    yield* cells.units(part.level, part.from, part.to, signal);
    return;
  }
  const ids = unitsOf(part).flatMap((unit) => partners.map((partnerId) => cellDocId(part.level, unit, partnerId)));
  if (ids.length > 0) yield await cells.byIds(ids, signal);
}

// A report over days `from` to `to` (each day the partner's own): the counter documents of the read
// plan, summed in memory; their totals documents when no country or source is grouped or filtered.
// Under a scope only its partners' documents are read (an affiliate_id outside it: an empty report).
// `signal` gives up the reads (someone waiting on an answer: boundedRead).
export async function readReport(
  cells: CellStore,
  q: ReportQuery,
  now: Date,
  scope: PartnerScope = ALL_PARTNERS,
  signal?: AbortSignal,
): Promise<Report> {
  const { from, to, groupBy } = reportScope(q, now);
  const totalsOnly =
    !groupBy.includes('country') && !groupBy.includes('source') && q.country === undefined && q.source === undefined;
  const partners = partnersToRead(scope, q.affiliate_id);
  const records: CellRecord[] = [];
  for (const part of readPlan(from, to, groupBy.includes('day'), totalsOnly)) {
    for await (const page of partDocs(cells, part, partners, signal)) {
      for (const doc of page) {
        const { unit, partnerId } = parseCellDocId(doc._id);
        for (const [field, counts] of Object.entries(allCellsOf(doc)))
          records.push({ key: { partnerId, day: unit }, field, counts });
      }
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
  const { from, rows } = await readReport(
    cells,
    { from: utcDay(now.getTime() - (OVERVIEW_DAYS - 1) * DAY_MS), to, group_by: 'day' },
    now,
  );
  return { from, to, rows };
}

import { ID_CEILING } from '../store/id-index';
import { keyPart } from '../store/list-index';
// Keys of the reports' read model. A counter document's `_id` is `<level>|<unit>|<partner id>`: level
// `d` for a day (unit yyyy-mm-dd), `b4` and `b16` for blocks of days (below), `m` for a month (unit
// yyyy-mm), all in the partner's time zone, so a range of any is one `_id` range (the unit leads after
// the level); inside a document, cells are a map keyed `<country>|<encoded source>`. Levels `t<level>`
// hold the same totals as one cell (ALL_CELLS): small documents for the views that group by
// neither country nor source (the local store reads every document whole, whatever is projected). Every character of a key lies between
// ID_FLOOR and ID_CEILING, as the local store's `_id` ranges need (src/shared/store/id-index.ts).

export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

// The source partitions counted into a counter document, each with its own offset in it (`o.<writer>`):
// p<n>: lead events partition n; i<n>: intake refusals partition n (docs/managers.md, "Reports");
// u<n>: the rebuild carrying refusal partition n's counts over from the former layout (below).
export type Writer = `p${number}` | `i${number}` | `u${number}`;

export const leadWriter = (partition: number): Writer => `p${partition}`;
export const refusalWriter = (partition: number): Writer => `i${partition}`;
export const isRefusalWriter = (writer: string): boolean => writer.startsWith('i') || writer.startsWith('u');

export type Level = 'd' | 'b4' | 'b16' | 'm' | 'td' | 'tb4' | 'tb16' | 'tm';

// Levels `b4` and `b16`: blocks of 4 and 16 days aligned on the epoch day number (unit: the block's
// first day), so a range that is not whole months still reads few documents: at most 3 days and 3
// blocks of 4 at either end, and the blocks of 16 between.
export const BLOCK_SIZES = [16, 4] as const;
export type BlockSize = (typeof BLOCK_SIZES)[number];
const DAY_MS = 86_400_000;

export function blockOf(day: string, size: BlockSize): string {
  const epochDay = Date.parse(`${day}T00:00:00Z`) / DAY_MS;
  return new Date((epochDay - (epochDay % size)) * DAY_MS).toISOString().slice(0, 10);
}

// The one cell of a totals document.
export const ALL_CELLS = '|';

export const monthOf = (day: string): string => day.slice(0, 7);

export function cellDocId(level: Level, unit: string, partnerId: string): string {
  return `${level}|${unit}|${partnerId}`;
}

export const dayDocId = (day: string, partnerId: string): string => cellDocId('d', day, partnerId);
export const monthDocId = (day: string, partnerId: string): string => cellDocId('m', monthOf(day), partnerId);

// The documents, and their cell, that a count of a partner's day in a cell adds to: the day's, its
// blocks', the month's, and their totals.
export function targetsOf(day: string, partnerId: string, field: string): [docId: string, field: string][] {
  const units: [Level, string][] = [
    ['d', day],
    ['b4', blockOf(day, 4)],
    ['b16', blockOf(day, 16)],
    ['m', monthOf(day)],
  ];
  return [
    ...units.map(([level, unit]): [string, string] => [cellDocId(level, unit, partnerId), field]),
    ...units.map(([level, unit]): [string, string] => [cellDocId(`t${level}` as Level, unit, partnerId), ALL_CELLS]),
  ];
}

export interface CellDocKey {
  level: Level;
  unit: string; // the day or the month
  partnerId: string;
}

export function parseCellDocId(id: string): CellDocKey {
  const first = id.indexOf('|');
  const second = id.indexOf('|', first + 1);
  return { level: id.slice(0, first) as Level, unit: id.slice(first + 1, second), partnerId: id.slice(second + 1) };
}

// The `_id` bounds of every counter document of a level, units `from` to `to` (inclusive): a bare
// unit sorts before every key that starts with it, and '~' after every partner id.
export function unitRange(level: Level, from: string, to: string): { $gt: string; $lt: string } {
  return { $gt: `${level}|${from}`, $lt: `${level}|${to}|${ID_CEILING}` };
}

// A cell's key in a counter document: the free-text source is percent-encoded ('.' and the other
// characters encodeURIComponent leaves included), so no value can break the key's '|' or pose as
// another; an absent country or source is empty.
export function cellField(country: string | null | undefined, source: string | null | undefined): string {
  return `${country ?? ''}|${encodeSource(source)}`;
}

// A counter document keeps at most this many cells of each kind (lead-derived, refusals): a
// partner may send any number of distinct sources, and every one was a cell of its day, block and
// month documents until a month document passed MongoDB's 16 MB and its writes failed. Past the
// bound a new source is counted in its country's "other sources" cell: totals and countries stay
// exact, and the sources counted first keep their own cells. About 250 bytes a cell.
export const MAX_CELLS = 500;
const OTHER = '~other'; // '~' is never in an encoded source (keyPart: [A-Za-z0-9%_-])
export const OTHER_SOURCES = '(other sources)';

// The cell `field` goes to in `cells`: its own, or its country's "other sources" once the bound is met.
export function boundedField(cells: Readonly<Record<string, unknown>>, field: string): string {
  if (field in cells || Object.keys(cells).length < MAX_CELLS) return field;
  return `${field.slice(0, field.indexOf('|'))}|${OTHER}`;
}

export function parseCellField(field: string): { country: string | null; source: string | null } {
  const bar = field.indexOf('|');
  const country = field.slice(0, bar);
  const source = field.slice(bar + 1);
  return {
    country: country === '' ? null : country,
    source: source === '' ? null : source === OTHER ? OTHER_SOURCES : decodeURIComponent(source),
  };
}

function encodeSource(source: string | null | undefined): string {
  if (source === null || source === undefined || source === '') return '';
  // A list key part, '.' escaped too.
  return keyPart(source).replace(/\./g, '%2E');
}

// The former layout, one document per writer: `<day>|<partner id>|<writer>` (a digit leads, never a level).
export const FORMER_LAYOUT = { $gt: '0', $lt: '9~' } as const;

export function parseFormerId(id: string): { day: string; partnerId: string; writer: string } {
  const first = id.indexOf('|');
  const last = id.lastIndexOf('|');
  return { day: id.slice(0, first), partnerId: id.slice(first + 1, last), writer: id.slice(last + 1) };
}

// Keys of the reports' read model. A counter document's `_id` is `<day>|<partner id>|<writer>`, so a
// date range is one `_id` range (days lead the key); inside it, cells are a map keyed
// `<country>|<encoded source>`. Every character of a key lies between '#' (0x23) and '~' (0x7E):
// the local store orders `_id` strings by their JSON form, which escapes anything outside.

export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

// Who may write a counter document: one writer per key, so no two processes ever race on it.
// p<n>: the report projector's owner of lead events partition n; i<n>: the owner of intake refusals
// partition n; r: the rebuild (docs/managers.md, "Reports").
export type Writer = `p${number}` | `i${number}` | 'r';

export const leadWriter = (partition: number): Writer => `p${partition}`;
export const refusalWriter = (partition: number): Writer => `i${partition}`;
export const REBUILD_WRITER: Writer = 'r';

// Lead-derived writers (the rebuild replaces them); refusal writers are kept.
export const isLeadDerived = (writer: string): boolean => writer === REBUILD_WRITER || /^p\d+$/.test(writer);

export function cellDocId(day: string, partnerId: string, writer: Writer): string {
  return `${day}|${partnerId}|${writer}`;
}

export interface CellDocKey {
  day: string;
  partnerId: string;
  writer: string;
}

export function parseCellDocId(id: string): CellDocKey {
  const first = id.indexOf('|');
  const last = id.lastIndexOf('|');
  return { day: id.slice(0, first), partnerId: id.slice(first + 1, last), writer: id.slice(last + 1) };
}

// The `_id` bounds of every counter document of days `from` to `to` (inclusive): a bare day sorts
// before every key that starts with it, and '~' after every partner id and writer.
export function dayRange(from: string, to: string): { $gt: string; $lt: string } {
  return { $gt: from, $lt: `${to}|~` };
}

// A cell's key in a counter document: the free-text source is percent-encoded ('.' and the other
// characters encodeURIComponent leaves included), so no value can break the key's '|' or pose as
// another; an absent country or source is empty.
export function cellField(country: string | null | undefined, source: string | null | undefined): string {
  return `${country ?? ''}|${encodeSource(source)}`;
}

export function parseCellField(field: string): { country: string | null; source: string | null } {
  const bar = field.indexOf('|');
  const country = field.slice(0, bar);
  const source = field.slice(bar + 1);
  return { country: country === '' ? null : country, source: source === '' ? null : decodeURIComponent(source) };
}

function encodeSource(source: string | null | undefined): string {
  if (source === null || source === undefined || source === '') return '';
  return encodeURIComponent(source).replace(/[.!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

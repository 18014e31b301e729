import { REJECTION_GROUPS, type Figures } from './report-types';

// How the report's numbers read on the page. Pure.

// A share as a percentage with at most one decimal; "—" when its denominator was 0.
export function percent(share: number | null): string {
  return share === null ? '—' : `${Number((share * 100).toFixed(1))}%`;
}

// A median is the upper bound of the histogram bucket holding it, hence "≤".
export function medianTime(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 3600) return `≤ ${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `≤ ${Number((seconds / 3600).toFixed(1))} h`;
  return `≤ ${Number((seconds / 86_400).toFixed(1))} d`;
}

// "country 1, cap 1": the reasons that rejected anything.
export function rejectionReasons(f: Figures): string {
  return REJECTION_GROUPS.filter((g) => f.rejected_by_reason[g] > 0)
    .map((g) => `${g} ${f.rejected_by_reason[g]}`)
    .join(', ');
}

const DAY_MS = 86_400_000;

// Every day from `from` to `to` (YYYY-MM-DD, inclusive), in order.
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

// The UTC instant 00:00 of `day` is in `zone` (a report's day is the partner's own).
export function zoneMidnight(day: string, zone: string): Date {
  const guess = Date.parse(`${day}T00:00:00Z`);
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const offset = (t: number) => {
    const p = Object.fromEntries(parts.formatToParts(t).map((x) => [x.type, Number(x.value)]));
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - t;
  };
  // The offset at the answer, not at the guess: they differ when a clock change falls in between.
  return new Date(guess - offset(guess - offset(guess)));
}

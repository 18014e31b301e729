// Wall-clock time in an IANA time zone, for rules that count days and hours or read shifts the way
// people in that zone do (partner caps, agent working hours).

// Whether this runtime can compute in the zone: a setting naming any other is refused. Aliases such
// as Europe/Kiev or US/Eastern count (Intl.supportedValuesOf lists canonical names only, not even UTC).
export function isKnownTimeZone(zone: string): boolean {
  try {
    formatFor(zone);
    return true;
  } catch {
    return false;
  }
}

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface LocalTime {
  date: string; // yyyy-mm-dd
  hour: number; // 0-23
  minute: number; // 0-59
  weekday: Weekday;
  offset: string; // +hh:mm: tells apart the two 01:00 hours of a night the clocks go back
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'short',
      timeZoneName: 'longOffset',
    });
    formats.set(timeZone, f);
  }
  return f;
}

export function localTime(at: Date, timeZone = 'UTC'): LocalTime {
  const parts = Object.fromEntries(
    formatFor(timeZone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const offset = (parts.timeZoneName ?? 'GMT').replace('GMT', '') || '+00:00';
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    weekday: (parts.weekday ?? 'Sun').toLowerCase() as Weekday,
    offset,
  };
}

const offsetMs = (offset: string): number => {
  const m = /^([+-])(\d\d):(\d\d)$/.exec(offset);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
};

// An instant as an ISO 8601 date-time in a zone, with its offset ("Z" in UTC): what a person in the
// zone reads, and the same instant for any program.
export function zonedDateTime(at: Date, timeZone: string): string {
  const t = localTime(at, timeZone);
  const iso = at.toISOString();
  if (t.offset === '+00:00') return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${t.date}T${pad(t.hour)}:${pad(t.minute)}${iso.slice(16, 23)}${t.offset}`; // no zone's offset has seconds
}

// The instant a wall-clock time ("2026-11-24T09:30", seconds optional) names in a zone; in the hour
// the clocks skip, the instant an hour later; in the hour they repeat, its first.
export function wallClockInstant(local: string, timeZone: string): Date | null {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2}(\.\d+)?)?$/.exec(local);
  if (!m) return null;
  const asUtc = Date.parse(`${m[1]}${m[2] ?? ':00'}Z`);
  if (Number.isNaN(asUtc)) return null;
  // The zone's offset a day either side decides; the earlier one first (the repeated hour's first).
  const offsets = [asUtc - 86_400_000, asUtc + 86_400_000].map((ms) =>
    offsetMs(localTime(new Date(ms), timeZone).offset),
  );
  for (const offset of [...new Set(offsets)].sort((a, b) => b - a)) {
    const at = new Date(asUtc - offset);
    if (localTime(at, timeZone).date === m[1]!.slice(0, 10) && zonedDateTime(at, timeZone).startsWith(m[1]!)) return at;
  }
  return new Date(asUtc - Math.min(...offsets)); // a skipped wall-clock time
}

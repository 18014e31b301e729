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

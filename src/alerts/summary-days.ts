import { localTime } from '../shared/local-time';
import { personZone } from '../shared/person-zone';

// Which day's summary is due for whom: each person's last whole day in their own zone (a manager,
// who has none, and a person without one: their partner's), from a quarter past their midnight on.
// The reports count a day's last leads within seconds; the margin keeps a summary from reading them
// early. A summary reads the partner's report day of its date (the one the portal's overview shows
// for it), so a person whose zone is ahead of their partner's waits until that day is over too:
// its counts are whole. Pure: the clock and the zones are inputs.
const SUMMARY_AFTER_MS = 15 * 60_000;
const DAY_MS = 86_400_000;

export function summaryDayDue(nowMs: number, zone: string): string {
  const today = localTime(new Date(nowMs - SUMMARY_AFTER_MS), zone).date;
  return new Date(Date.parse(`${today}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
}

export interface SummaryReader {
  accountId: string;
  timeZone: string | null; // their own setting
}

// One summary of a partner's day: the people it is due for now, and whether it is the partner's
// own day (its zone's), the one its alerts' webhook is posted.
export interface SummaryDue {
  day: string;
  accountIds: string[];
  webhook: boolean;
}

export function summariesDue(
  nowMs: number,
  partnerZone: string | null,
  readers: readonly SummaryReader[],
): SummaryDue[] {
  const byDay = new Map<string, SummaryDue>();
  const of = (day: string) => byDay.get(day) ?? byDay.set(day, { day, accountIds: [], webhook: false }).get(day)!;
  const partnersDay = summaryDayDue(nowMs, personZone(null, partnerZone));
  of(partnersDay).webhook = true;
  for (const r of readers) {
    const own = summaryDayDue(nowMs, personZone(r.timeZone, partnerZone));
    of(own < partnersDay ? own : partnersDay).accountIds.push(r.accountId);
  }
  return [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day));
}

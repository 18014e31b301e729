import { summariesDue, summaryDayDue } from '../../src/alerts/summary-days';

// Which day's summary is due for a person now: their last whole day in their own zone, from a
// quarter past their midnight on; one summary per person per local day.
const at = (iso: string) => Date.parse(iso);

describe("a person's daily summary", () => {
  it('is due for their last whole local day from a quarter past their midnight', () => {
    // New York is at UTC-5 in January: its midnight is 05:00 UTC.
    expect(summaryDayDue(at('2030-01-02T05:10:00Z'), 'America/New_York')).toBe('2029-12-31');
    expect(summaryDayDue(at('2030-01-02T05:15:00Z'), 'America/New_York')).toBe('2030-01-01');
    // 00:20 UTC is still the evening before in New York: its 1 January is not over.
    expect(summaryDayDue(at('2030-01-02T00:20:00Z'), 'America/New_York')).toBe('2029-12-31');
    // Kolkata is at UTC+5:30: its midnight is 18:30 UTC the evening before.
    expect(summaryDayDue(at('2030-01-01T18:44:00Z'), 'Asia/Kolkata')).toBe('2029-12-31');
    expect(summaryDayDue(at('2030-01-01T18:45:00Z'), 'Asia/Kolkata')).toBe('2030-01-01');
    // 00:20 UTC on 2 January is 05:50 in Kolkata: its 1 January has been over for hours.
    expect(summaryDayDue(at('2030-01-02T00:20:00Z'), 'Asia/Kolkata')).toBe('2030-01-01');
    expect(summaryDayDue(at('2030-01-02T00:15:00Z'), 'UTC')).toBe('2030-01-01');
    expect(summaryDayDue(at('2030-01-02T00:14:00Z'), 'UTC')).toBe('2029-12-31');
  });

  it('follows the clocks across summer time, the short and the long day alike', () => {
    // 9 March 2025: New York springs forward (a 23-hour day); its midnight after it is 04:00 UTC.
    expect(summaryDayDue(at('2025-03-10T04:14:00Z'), 'America/New_York')).toBe('2025-03-08');
    expect(summaryDayDue(at('2025-03-10T04:15:00Z'), 'America/New_York')).toBe('2025-03-09');
    // 2 November 2025: it falls back (a 25-hour day); its midnight after it is 05:00 UTC.
    expect(summaryDayDue(at('2025-11-03T04:30:00Z'), 'America/New_York')).toBe('2025-11-01');
    expect(summaryDayDue(at('2025-11-03T05:15:00Z'), 'America/New_York')).toBe('2025-11-02');
    // Berlin's summer time begins at 01:00 UTC on 30 March 2025: its midnight after it is 22:00 UTC.
    expect(summaryDayDue(at('2025-03-30T22:15:00Z'), 'Europe/Berlin')).toBe('2025-03-30');
    expect(summaryDayDue(at('2025-03-30T22:14:00Z'), 'Europe/Berlin')).toBe('2025-03-29');
  });

  it("groups the people by the day due for each, in their own zone, else their partner's", () => {
    const people = [
      { accountId: 'acc-ny', timeZone: 'America/New_York' },
      { accountId: 'acc-in', timeZone: 'Asia/Kolkata' },
      { accountId: 'acc-p', timeZone: null }, // the partner's zone
      { accountId: 'acc-m', timeZone: null }, // a manager: the partner's zone too
    ];
    // 03:00 UTC on 2 January: Kolkata's 1 January is over, New York's not yet, Berlin's (the partner's) is.
    expect(summariesDue(at('2030-01-02T03:00:00Z'), 'Europe/Berlin', people)).toEqual([
      { day: '2029-12-31', accountIds: ['acc-ny'], webhook: false },
      { day: '2030-01-01', accountIds: ['acc-in', 'acc-p', 'acc-m'], webhook: true },
    ]);
    // The partner's webhook gets its own day's summary when nobody of that zone is due for it.
    expect(summariesDue(at('2030-01-02T03:00:00Z'), 'UTC', people.slice(0, 1))).toEqual([
      { day: '2029-12-31', accountIds: ['acc-ny'], webhook: false },
      { day: '2030-01-01', accountIds: [], webhook: true },
    ]);
    expect(summariesDue(at('2030-01-02T03:00:00Z'), null, [])).toEqual([
      { day: '2030-01-01', accountIds: [], webhook: true },
    ]);
  });

  it("waits, for a person ahead of their partner's zone, until the partner's day of that date is over too", () => {
    const people = [
      { accountId: 'acc-in', timeZone: 'Asia/Kolkata' },
      { accountId: 'acc-p', timeZone: null },
    ];
    // 03:00 UTC on 2 January: Kolkata's 1 January is over, the partner's (New York's) is not: its counts grow still.
    expect(summariesDue(at('2030-01-02T03:00:00Z'), 'America/New_York', people)).toEqual([
      { day: '2029-12-31', accountIds: ['acc-in', 'acc-p'], webhook: true },
    ]);
    expect(summariesDue(at('2030-01-02T05:15:00Z'), 'America/New_York', people)).toEqual([
      { day: '2030-01-01', accountIds: ['acc-in', 'acc-p'], webhook: true },
    ]);
  });
});

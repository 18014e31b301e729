import {
  addDays,
  daysBetween,
  medianTime,
  percent,
  rejectionReasons,
  zoneMidnight,
} from '../../src/ui-kit/report/report-format';
import type { Figures } from '../../src/ui-kit/report/report-types';

// How the console's Reports page writes the report's numbers, and the partner's days it links to.
describe('report figures on the page', () => {
  it('writes shares as percentages, "—" for none', () => {
    expect([percent(0.4211), percent(0.75), percent(1), percent(0), percent(null)]).toEqual([
      '42.1%',
      '75%',
      '100%',
      '0%',
      '—',
    ]);
  });

  it('writes a median as the upper bound of its bucket', () => {
    expect([medianTime(300), medianTime(3600), medianTime(5400), medianTime(172_800), medianTime(null)]).toEqual([
      '≤ 5 min',
      '≤ 1 h',
      '≤ 1.5 h',
      '≤ 2 d',
      '—',
    ]);
  });

  it('names only the reasons that rejected something', () => {
    const byReason = { country: 1, source: 0, ip: 0, risk: 2, cap: 0, other: 0 };
    expect(rejectionReasons({ rejected_by_reason: byReason } as Figures)).toBe('country 1, risk 2');
  });

  it('counts days inclusively, across a month end', () => {
    expect(daysBetween('2026-10-30', '2026-11-02')).toEqual(['2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02']);
    expect(daysBetween('2026-11-02', '2026-11-01')).toEqual([]);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });

  it("finds the UTC instant a partner's day starts, a clock change included", () => {
    expect(zoneMidnight('2026-11-11', 'Asia/Tokyo').toISOString()).toBe('2026-11-10T15:00:00.000Z');
    expect(zoneMidnight('2026-11-01', 'America/New_York').toISOString()).toBe('2026-11-01T04:00:00.000Z'); // still summer time
    expect(zoneMidnight('2026-11-02', 'America/New_York').toISOString()).toBe('2026-11-02T05:00:00.000Z');
    expect(zoneMidnight('2026-03-29', 'Europe/Berlin').toISOString()).toBe('2026-03-28T23:00:00.000Z'); // the clocks go forward at 02:00
    expect(zoneMidnight('2026-11-10', 'UTC').toISOString()).toBe('2026-11-10T00:00:00.000Z');
  });
});

import { personZone } from '../../src/shared/person-zone';
import { wallClockInstant, zonedDateTime } from '../../src/shared/local-time';
import { overviewRange } from '../../src/portal/api/routes/overview-routes';

describe("a partner's person's time zone", () => {
  it('is their own, else their partner’s, else UTC', () => {
    expect(personZone('Asia/Tokyo', 'Europe/Berlin')).toBe('Asia/Tokyo');
    expect(personZone(null, 'Europe/Berlin')).toBe('Europe/Berlin');
    expect(personZone(undefined, null)).toBe('UTC');
  });

  it('decides which day is today for the overview’s 1, 7 and 30 days', () => {
    const now = new Date('2025-03-10T23:30:00Z');
    expect(overviewRange({ days: 1 }, now, 'UTC')).toEqual({ from: '2025-03-10', to: '2025-03-10' });
    expect(overviewRange({ days: 1 }, now, 'Pacific/Auckland')).toEqual({ from: '2025-03-11', to: '2025-03-11' });
    expect(overviewRange({ days: 7 }, now, 'Europe/Berlin')).toEqual({ from: '2025-03-05', to: '2025-03-11' });
    expect(overviewRange({ days: 30 }, new Date('2025-03-10T02:00:00Z'), 'America/New_York')).toEqual({
      from: '2025-02-08',
      to: '2025-03-09',
    });
    // Days chosen are taken as they are.
    expect(overviewRange({ days: 7, from: '2025-01-01', to: '2025-01-31' }, now, 'Asia/Tokyo')).toEqual({
      from: '2025-01-01',
      to: '2025-01-31',
    });
  });

  it('writes a CSV time in the zone with its offset, the same instant', () => {
    const at = new Date('2025-03-30T00:30:05.120Z'); // the night Berlin moves to summer time
    expect(zonedDateTime(at, 'UTC')).toBe('2025-03-30T00:30:05.120Z');
    expect(zonedDateTime(at, 'Europe/Berlin')).toBe('2025-03-30T01:30:05.120+01:00');
    expect(zonedDateTime(new Date('2025-03-30T01:30:05.120Z'), 'Europe/Berlin')).toBe('2025-03-30T03:30:05.120+02:00');
    expect(zonedDateTime(at, 'Asia/Kathmandu')).toBe('2025-03-30T06:15:05.120+05:45');
    expect(zonedDateTime(at, 'America/Los_Angeles')).toBe('2025-03-29T17:30:05.120-07:00');
    for (const zone of ['Europe/Berlin', 'Asia/Kathmandu', 'America/Los_Angeles'])
      expect(Date.parse(zonedDateTime(at, zone))).toBe(at.getTime());
  });

  it('reads a wall-clock time typed in the zone as its instant', () => {
    const at = (local: string, zone: string) => wallClockInstant(local, zone)?.toISOString();
    expect(at('2025-11-24T09:30', 'UTC')).toBe('2025-11-24T09:30:00.000Z');
    expect(at('2025-11-24T09:30:15', 'Asia/Tokyo')).toBe('2025-11-24T00:30:15.000Z');
    expect(at('2025-11-24T09:30', 'America/New_York')).toBe('2025-11-24T14:30:00.000Z');
    expect(at('2025-07-01T00:00', 'Europe/Berlin')).toBe('2025-06-30T22:00:00.000Z');
    expect(at('2025-03-30T02:30', 'Europe/Berlin')).toBe('2025-03-30T01:30:00.000Z'); // skipped: an hour later
    expect(at('2025-10-26T02:30', 'Europe/Berlin')).toBe('2025-10-26T00:30:00.000Z'); // repeated: the first
    expect(at('2025-11-24', 'UTC')).toBeUndefined();
  });
});

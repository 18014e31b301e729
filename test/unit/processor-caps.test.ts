import { capCounters, capReason } from '../../src/processor/caps';
import { isKnownTimeZone, localTime } from '../../src/shared/local-time';
import { timeZoneProblem } from '../../src/manager/time-zone-setting';

const partner = (over: Record<string, unknown> = {}) => ({ _id: 'pa-1', ...over });

describe('cap counters', () => {
  const at = new Date('2026-11-23T23:30:00Z');

  it('counts nothing for a partner without caps', () => {
    expect(capCounters(partner(), 'DE', at)).toEqual([]);
    expect(capCounters(partner({ caps: null }), 'DE', at)).toEqual([]);
  });

  it('checks partner caps before country caps, daily before hourly, only the caps that are set', () => {
    const caps = { daily: 100, hourly: 10, countries: { DE: { hourly: 3 }, FR: { daily: 5 } } };
    expect(capCounters(partner({ caps }), 'DE', at).map((c) => [c.scope, c.limit])).toEqual([
      ['partner_daily', 100],
      ['partner_hourly', 10],
      ['country_hourly', 3],
    ]);
    expect(capCounters(partner({ caps }), 'FR', at).map((c) => c.scope)).toEqual([
      'partner_daily',
      'partner_hourly',
      'country_daily',
    ]);
    expect(capCounters(partner({ caps }), undefined, at).map((c) => c.scope)).toEqual([
      'partner_daily',
      'partner_hourly',
    ]);
  });

  it("counts a sandbox partner's leads apart, so none of them is left in a live day's count", () => {
    const caps = { daily: 5, countries: { DE: { hourly: 1 } } };
    const live = capCounters(partner({ caps }), 'DE', at).map((c) => c.key);
    const sandbox = capCounters(partner({ caps, mode: 'test' }), 'DE', at).map((c) => c.key);
    expect(live).toEqual(['cap:pa-1:all:partner_daily:2026-11-23', 'cap:pa-1:DE:country_hourly:2026-11-23T23+00:00']);
    expect(sandbox).toEqual(live.map((k) => k.replace('cap:', 'cap:test:')));
  });

  it('counts days and hours in the partner time zone', () => {
    const caps = { daily: 1, hourly: 1 };
    const utc = capCounters(partner({ caps }), undefined, at);
    const berlin = capCounters(partner({ caps, time_zone: 'Europe/Berlin' }), undefined, at);
    expect(utc[0]?.key).toBe('cap:pa-1:all:partner_daily:2026-11-23');
    expect(berlin[0]?.key).toBe('cap:pa-1:all:partner_daily:2026-11-24'); // 00:30 next day in Berlin
    expect(berlin[1]?.key).toBe('cap:pa-1:all:partner_hourly:2026-11-24T00+01:00');
    // Kolkata is +05:30: its hours are not UTC hours.
    const kolkata = (iso: string) =>
      capCounters(partner({ caps, time_zone: 'Asia/Kolkata' }), undefined, new Date(iso))[1]?.key;
    expect(kolkata('2026-11-23T10:35:00Z')).toBe(kolkata('2026-11-23T10:50:00Z')); // 16:05 and 16:20
    expect(kolkata('2026-11-23T10:20:00Z')).not.toBe(kolkata('2026-11-23T10:35:00Z')); // 15:50 and 16:05
  });

  it('starts a new counter each day and hour, and keeps apart the repeated hour when clocks go back', () => {
    const caps = { daily: 1, hourly: 1 };
    const keys = (iso: string) =>
      capCounters(partner({ caps, time_zone: 'Europe/Berlin' }), undefined, new Date(iso)).map((c) => c.key);
    expect(keys('2026-11-23T10:59:00Z')[1]).not.toBe(keys('2026-11-23T11:00:00Z')[1]);
    expect(keys('2026-11-23T10:59:00Z')[0]).toBe(keys('2026-11-23T11:00:00Z')[0]);
    // 25 October 2026: 02:00-03:00 local happens twice in Berlin (00:00Z and 01:00Z).
    expect(keys('2026-10-25T00:30:00Z')[1]).not.toBe(keys('2026-10-25T01:30:00Z')[1]);
  });

  it('keeps a counter past its window and names the partner and country in its key', () => {
    const [daily, hourly, country] = capCounters(
      partner({ caps: { daily: 1, hourly: 1, countries: { DE: { daily: 1 } } } }),
      'DE',
      at,
    );
    expect(daily?.ttlS).toBeGreaterThan(86_400);
    expect(hourly?.ttlS).toBeGreaterThan(3_600);
    expect(country?.key).toBe('cap:pa-1:DE:country_daily:2026-11-23');
  });

  it('names the scope in the rejection reason', () =>
    expect(capReason('country_hourly')).toBe('cap_reached:country_hourly'));
});

describe('local time', () => {
  it('reads date, hour, weekday and offset in a zone', () => {
    expect(localTime(new Date('2026-11-23T23:30:00Z'), 'America/New_York')).toEqual({
      date: '2026-11-23',
      hour: 18,
      minute: 30,
      weekday: 'mon',
      offset: '-05:00',
    });
    expect(localTime(new Date('2026-11-23T23:30:00Z'))).toEqual({
      date: '2026-11-23',
      hour: 23,
      minute: 30,
      weekday: 'mon',
      offset: '+00:00',
    });
  });

  it('knows the zones the runtime can compute in, aliases and UTC included, and names any other as the problem', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Europe/Kiev', 'US/Eastern'])
      expect(isKnownTimeZone(zone)).toBe(true);
    for (const zone of ['Mars/Olympus', 'Europe/Berlinn', 'GMT+25']) expect(isKnownTimeZone(zone)).toBe(false);
    expect(timeZoneProblem({})).toBeNull();
    expect(timeZoneProblem({ time_zone: 'Asia/Tokyo' })).toBeNull();
    expect(timeZoneProblem({ time_zone: 'Mars/Olympus' })).toMatch(/^\/time_zone /);
  });
});

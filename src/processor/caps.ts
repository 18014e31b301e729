import { localTime } from '../shared/local-time';
import type { PartnerDoc } from '../shared/mongo/documents';

// Caps on accepted leads (partner setting `caps`), per partner and per partner and country, by
// calendar day and clock hour in the partner's time zone. A lead over a cap is rejected with
// `cap_reached:<scope>`; scopes are checked in this order and the first full one is named.
export const CAP_SCOPES = ['partner_daily', 'partner_hourly', 'country_daily', 'country_hourly'] as const;
export type CapScope = (typeof CAP_SCOPES)[number];

// A counter of accepted leads in one window: the Redis key names the partner, the scope and the
// window, so a new day or hour starts a new counter and old ones simply expire. A sandbox partner's
// (mode test) are counters of their own: its test leads meet its caps as live ones would, and a
// partner switched to live starts with its live counters untouched by them.
export interface CapCounter {
  scope: CapScope;
  key: string;
  limit: number;
  ttlS: number;
}

// Longer than the window by a margin: a counter must outlive every lead that may still count in it.
const DAY_TTL_S = 2 * 86_400;
const HOUR_TTL_S = 3 * 3_600;

type CappedPartner = Pick<PartnerDoc, '_id' | 'caps' | 'time_zone' | 'mode'>;

// The counters a lead of this partner from this country would count against at `now`.
export function capCounters(partner: CappedPartner, countryCode: string | undefined, now: Date): CapCounter[] {
  const caps = partner.caps;
  if (!caps) return [];
  const t = localTime(now, partner.time_zone ?? 'UTC');
  const day = t.date;
  // The offset keeps apart the two local hours of a night the clocks go back.
  const hour = `${t.date}T${String(t.hour).padStart(2, '0')}${t.offset}`;
  const country = countryCode === undefined ? undefined : caps.countries?.[countryCode];
  const wanted: [CapScope, number | undefined, string, string, number][] = [
    ['partner_daily', caps.daily, 'all', day, DAY_TTL_S],
    ['partner_hourly', caps.hourly, 'all', hour, HOUR_TTL_S],
    ['country_daily', country?.daily, countryCode ?? '', day, DAY_TTL_S],
    ['country_hourly', country?.hourly, countryCode ?? '', hour, HOUR_TTL_S],
  ];
  return wanted
    .filter(([, limit]) => limit !== undefined)
    .map(([scope, limit, of, window, ttlS]) => ({
      scope,
      key: `cap:${partner.mode === 'test' ? 'test:' : ''}${partner._id}:${of}:${scope}:${window}`,
      limit: limit as number,
      ttlS,
    }));
}

export const CAP_REASON_PREFIX = 'cap_reached:';

export function capReason(scope: CapScope): string {
  return `${CAP_REASON_PREFIX}${scope}`;
}

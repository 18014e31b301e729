import { isKnownTimeZone } from '../shared/local-time';

// What the schema cannot say about a time_zone setting (partners' caps, agents' working hours): that
// this runtime can compute in it. Returns the problem or null.
export function timeZoneProblem(settings: { time_zone?: string }): string | null {
  const zone = settings.time_zone;
  return zone === undefined || isKnownTimeZone(zone) ? null : `/time_zone "${zone}" is not an IANA time zone this server knows`;
}

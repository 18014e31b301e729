// The time zone a partner's person reads the portal in: their own setting, else their partner's
// (the one its caps and report days count in), else UTC.
export function personZone(own: string | null | undefined, partner: string | null | undefined): string {
  return own ?? partner ?? 'UTC';
}

// The time zone a partner's person reads the portal and their alerts in: their own setting, else
// their partner's (the one its caps and report days count in), else UTC. A manager has no setting
// of their own: a partner's summary reaches them in the partner's zone.
export function personZone(own: string | null | undefined, partner: string | null | undefined): string {
  return own ?? partner ?? 'UTC';
}

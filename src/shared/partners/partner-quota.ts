import type { PartnerDoc } from '../mongo/documents';

// A partner's request quotas (spec 8: per partner, never per IP): the ingress counts requests
// against them, the portal shows them with their use. One sliding window per partner and endpoint.
export type Endpoint = 'intake' | 'status' | 'reports';

export const WINDOW_MS = 60_000;

export interface DefaultQuotas {
  intakePerMinute: number;
  statusPerMinute: number;
}

// A manager may raise a partner's quota in partner.rate_limits. The reporting calls (leads and
// reports) count in a window of their own at the status lookup's quota.
export function quotaFor(
  partner: Pick<PartnerDoc, 'rate_limits'>,
  endpoint: Endpoint,
  defaults: DefaultQuotas,
): number {
  return endpoint === 'intake'
    ? (partner.rate_limits?.intake_per_minute ?? defaults.intakePerMinute)
    : (partner.rate_limits?.status_per_minute ?? defaults.statusPerMinute);
}

// The Redis sorted set of the partner's requests in the window (scored by Redis time in ms).
export function quotaWindowKey(endpoint: Endpoint, partnerId: string): string {
  return `rl:${endpoint}:${partnerId}`;
}

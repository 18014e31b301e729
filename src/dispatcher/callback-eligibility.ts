import type { PartnerDoc } from '../shared/mongo/documents';
import type { LeadEvent } from '../shared/schemas';

// Whether a partner wants this event (spec 2.1 and 6.2): only with a callback_url, and only events
// in callback_events when that list is not empty.
export type Eligibility = 'send' | 'no_callback_url' | 'not_in_whitelist';

export function callbackEligibility(
  partner: Pick<PartnerDoc, 'callback_url' | 'callback_events'>,
  event: LeadEvent['event'],
): Eligibility {
  if (!partner.callback_url) return 'no_callback_url';
  const whitelist = partner.callback_events ?? [];
  if (whitelist.length > 0 && !whitelist.includes(event)) return 'not_in_whitelist';
  return 'send';
}

import type { PartnerDoc } from '../shared/mongo/documents';
import type { LeadEvent } from '../shared/schemas';
import type { DeliveryKind } from '../shared/delivery-kind';
import { postbackFor } from '../shared/postbacks/postback-template';

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

// The deliveries an event makes for its partner: a callback (above), a postback (a template for the
// event, in the postback whitelist), both or none.
export function deliveryKinds(
  partner: Pick<PartnerDoc, 'callback_url' | 'callback_events' | 'postbacks' | 'status_mapping'>,
  event: LeadEvent['event'],
): DeliveryKind[] {
  const kinds: DeliveryKind[] = [];
  if (callbackEligibility(partner, event) === 'send') kinds.push('callback');
  if (postbackFor(partner.postbacks, partner.status_mapping, event)) kinds.push('postback');
  return kinds;
}

import { deliveryId } from '../../shared/ids';
import { testLabel, type PartnerDoc } from '../../shared/mongo/documents';
import type { PartnerDirectory } from '../../shared/partners/partner-directory';
import type { Logger } from '../../shared/logger';
import type { LeadEvent } from '../../shared/schemas';
import { endpointId, type DeliveryKind } from '../../shared/delivery-kind';
import { postbackFor } from '../../shared/postbacks/postback-template';
import type { DispatcherMetrics } from '../metrics';

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

// One delivery an event makes: to one endpoint of its partner.
export interface Wanted {
  id: string;
  event: LeadEvent;
  kind: DeliveryKind;
  endpoint: string;
}

export interface EventDeliveriesDeps {
  partners: PartnerDirectory;
  metrics: DispatcherMetrics;
  logger: Logger;
}

// The deliveries each event makes, as its partner wants them now (none: counted as skipped, once,
// where the partition's consumer reads it; `count` false where it is read again from a backlog).
export async function eventDeliveries(
  { partners, metrics, logger }: EventDeliveriesDeps,
  events: readonly LeadEvent[],
  count = true,
): Promise<Wanted[][]> {
  const wanted: Wanted[][] = [];
  for (const event of events) {
    const partner = await partners.byId(event.partner_id);
    const kinds = partner ? deliveryKinds(partner, event.event) : [];
    wanted.push(
      kinds.map((kind) => ({
        id: deliveryId(event.event_id, event.partner_id, kind),
        event,
        kind,
        endpoint: endpointId(event.partner_id, kind),
      })),
    );
    if (kinds.length > 0 || !count) continue;
    metrics.deliveries.inc({
      event: event.event,
      outcome: 'skipped',
      partner_id: event.partner_id,
      test: testLabel(event.test),
    });
    logger.debug(
      {
        event_id: event.event_id,
        partner_id: event.partner_id,
        reason: partner ? 'not_wanted' : 'unknown_partner',
      },
      'no callback or postback for this event',
    );
  }
  return wanted;
}

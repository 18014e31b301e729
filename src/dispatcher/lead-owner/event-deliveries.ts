import { deliveryId } from '../../shared/ids';
import { testLabel } from '../../shared/mongo/documents';
import type { PartnerDirectory } from '../../shared/partners/partner-directory';
import type { Logger } from '../../shared/logger';
import type { LeadEvent } from '../../shared/schemas';
import { endpointId, type DeliveryKind } from '../../shared/delivery-kind';
import { deliveryKinds } from '../callback-eligibility';
import type { DispatcherMetrics } from '../metrics';

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

import type { LeadEvent } from '../../src/shared/schemas';
import type { Runtime } from '../../src/shared/runtime';
import { deliveryId } from '../../src/shared/ids';
import type { DeliveryDoc } from '../../src/shared/mongo/documents';
import { produce } from './intake-commands';

let seq = 1000;

// A lead event as the processor publishes it, for a fresh lead unless lead_id is given.
export function leadEvent(partnerId: string, over: Partial<LeadEvent> = {}): LeadEvent {
  const lead = over.lead_id ?? `le-${++seq}`;
  return {
    event_id: `${lead}:0`,
    event: 'lead.accepted',
    lead_id: lead,
    partner_id: partnerId,
    external_lead_id: `ext-${lead}`,
    our_status: 'new',
    is_depositor: false,
    occurred_at: new Date().toISOString(),
    ...over,
  };
}

// Onto the real lead events topic, keyed by lead id, exactly as the processor does.
export async function publishLeadEvents(rt: Runtime, events: LeadEvent[]): Promise<void> {
  await produce(rt, 'leadEvents', events, (e) => (e as LeadEvent).lead_id);
}

export async function deliveryRecord(rt: Runtime, event: LeadEvent): Promise<DeliveryDoc | null> {
  return rt.mongo.collections.deliveries.findOne({ _id: deliveryId(event.event_id, event.partner_id) });
}

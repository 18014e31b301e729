import type { DeliveryDoc, DeliveryState } from '../mongo/documents';
import { schemas } from '../schemas';
import type { LeadEvent } from '../schemas';
import { listPrefix, type ListEntry } from './list-index';

// The delivery queue's read model (collection delivery_list), written by the dispatcher with the
// records it lists. Every delivery has four entries, one per way the queue is filtered, ordered by
// the event's occurred_at; the event name is always the last dimension, so a view that does not
// filter on it merges one range per event name (five), and none needs a combination of its own:
//   d|<event>|...              every delivery
//   ds|<state>|<event>|...     by state (the dead letters a manager starts from)
//   dp|<partner>|<event>|...   by partner (also what a replay reads)
//   dsp|<state>|<partner>|<event>|...
// The two with a state move when the record's state changes.
export const LEAD_EVENT_NAMES = ((schemas.get('lead-event.json')?.properties as Record<string, { enum?: string[] }>).event!.enum ?? []) as LeadEvent['event'][];

export interface DeliveryListFilter {
  state?: DeliveryState;
  partnerId?: string;
  event?: string;
}

type Listed = Pick<LeadEvent, 'event' | 'partner_id' | 'lead_id' | 'occurred_at'>;

export function deliveryListPrefixes(f: DeliveryListFilter): string[] {
  const events = f.event ? [f.event] : LEAD_EVENT_NAMES;
  return events.map((event) => {
    if (f.state && f.partnerId) return listPrefix('dsp', f.state, f.partnerId, event);
    if (f.state) return listPrefix('ds', f.state, event);
    if (f.partnerId) return listPrefix('dp', f.partnerId, event);
    return listPrefix('d', event);
  });
}

// The entries that do not depend on the state: written once, with the first record.
function steadyEntries(id: string, e: Listed): ListEntry[] {
  const at = new Date(e.occurred_at);
  return [
    { prefix: listPrefix('d', e.event), at, ref: id },
    { prefix: listPrefix('dp', e.partner_id, e.event), at, ref: id, fields: { lead_id: e.lead_id } }, // a replay's command names the lead
  ];
}

export function stateEntries(id: string, e: Listed, state: DeliveryState): ListEntry[] {
  const at = new Date(e.occurred_at);
  return [
    { prefix: listPrefix('ds', state, e.event), at, ref: id, fields: { state } },
    { prefix: listPrefix('dsp', state, e.partner_id, e.event), at, ref: id, fields: { state } },
  ];
}

export function deliveryEntries(doc: Pick<DeliveryDoc, '_id' | 'event' | 'state'>): ListEntry[] {
  return [...steadyEntries(doc._id, doc.event), ...stateEntries(doc._id, doc.event, doc.state)];
}

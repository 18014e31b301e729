import { DELIVERY_STATES, testMark, type DeliveryDoc, type DeliveryState } from '../mongo/documents';
import { schemas } from '../schemas';
import type { LeadEvent } from '../schemas';
import { listPrefix, type ListEntry } from './list-index';

// The delivery queue's read model (collection delivery_list), written by the dispatcher with the
// records it lists. Every delivery has two entries, both by its state, ordered by the record's
// created_at, then its event id (and kind): one lead's records are created in event order (one at a
// time), which a replay, reading them oldest first, keeps. (The event's occurred_at is the CRM's
// time, not in event order.) State and event name are the dimensions a view may leave open: it
// merges one range per state (three) and event name (five), so no view needs entries of its own:
//   ds|<state>|<event>|...               every delivery, or by state (the dead letters a manager starts from)
//   dsp|<state>|<partner>|<event>|...    by partner (also what a replay reads), or by state and partner
// Both move when the record's state changes; a move keeps the entry's time and tie, so a cursor
// (`<time>|<tie>`) stays valid across states, and while both entries exist (put before removed) the
// one whose state the record no longer has is dropped by the reader (docs/benchmarks.md, "Documents per lead").
export const LEAD_EVENT_NAMES = ((schemas.get('lead-event.json')?.properties as Record<string, { enum?: string[] }>).event!.enum ?? []) as LeadEvent['event'][];

export interface DeliveryListFilter {
  state?: DeliveryState;
  partnerId?: string;
  event?: string;
}

export type ListedDelivery = Pick<DeliveryDoc, '_id' | 'created_at' | 'kind'> & { event: Pick<LeadEvent, 'event' | 'event_id' | 'partner_id' | 'lead_id' | 'test'> };

// Event ids `<lead>:<n>` with n padded, so a lead's events of one millisecond sort in event order;
// a postback's after its callback's, so the two deliveries of one event never share an entry.
const tie = (d: ListedDelivery): string =>
  d.event.event_id.replace(/:(\d+)$/, (_, n: string) => `:${n.padStart(6, '0')}`) + (d.kind ? `:${d.kind}` : '');

export function deliveryListPrefixes(f: DeliveryListFilter): string[] {
  const events = f.event ? [f.event] : LEAD_EVENT_NAMES;
  const states = f.state ? [f.state] : DELIVERY_STATES;
  return states.flatMap((state) => events.map((event) => (f.partnerId
    ? listPrefix('dsp', state, f.partnerId, event)
    : listPrefix('ds', state, event))));
}

export function stateEntries(d: ListedDelivery, state: DeliveryState): ListEntry[] {
  const base = { at: d.created_at, ref: d._id, tie: tie(d), fields: { state } };
  return [
    { ...base, prefix: listPrefix('ds', state, d.event.event) },
    // A replay's command names the lead and the kind; an entry that names a sandbox lead is marked like every store.
    { ...base, prefix: listPrefix('dsp', state, d.event.partner_id, d.event.event), fields: { state, lead_id: d.event.lead_id, ...testMark(d.event.test), ...(d.kind && { kind: d.kind }) } },
  ];
}

export function deliveryEntries(doc: ListedDelivery & Pick<DeliveryDoc, 'state'>): ListEntry[] {
  return stateEntries(doc, doc.state);
}

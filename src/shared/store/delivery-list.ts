import { testMark, type DeliveryDoc, type DeliveryState } from '../mongo/documents';
import { schemas } from '../schemas';
import type { LeadEvent } from '../schemas';
import { listPrefix, type ListEntry } from './list-index';

// The delivery queue's read model (collection delivery_list), written by the dispatcher with the
// records it lists. Every delivery has four entries, one per way the queue is filtered, ordered by
// the record's created_at, then its event id: one lead's records are created in event order (one at
// a time), which a replay, reading them oldest first, keeps. (The event's occurred_at is the CRM's
// time, not in event order.) The event name is always the last dimension, so a view that does not
// filter on it merges one range per event name (five), and none needs a combination of its own:
//   d|<event>|...              every delivery
//   ds|<state>|<event>|...     by state (the dead letters a manager starts from)
//   dp|<partner>|<event>|...   by partner (also what a replay reads)
//   dsp|<state>|<partner>|<event>|...
// The two with a state move when the record's state changes.
export const LEAD_EVENT_NAMES = ((schemas.get('lead-event.json')?.properties as Record<string, { enum?: string[] }>)
  .event!.enum ?? []) as LeadEvent['event'][];

export interface DeliveryListFilter {
  state?: DeliveryState;
  partnerId?: string;
  event?: string;
}

export type ListedDelivery = Pick<DeliveryDoc, '_id' | 'created_at' | 'kind'> & {
  event: Pick<LeadEvent, 'event' | 'event_id' | 'partner_id' | 'lead_id' | 'test'>;
};

// Event ids `<lead>:<n>` with n padded, so a lead's events of one millisecond sort in event order; a
// postback's after its callback's: the two deliveries of one event, recorded in the same millisecond,
// would otherwise share every entry, and the postback would be missing from the queue and from replays.
const tie = (d: ListedDelivery): string =>
  d.event.event_id.replace(/:(\d+)$/, (_, n: string) => `:${n.padStart(6, '0')}`) + (d.kind ? `:${d.kind}` : '');

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
function steadyEntries(d: ListedDelivery): ListEntry[] {
  const base = { at: d.created_at, ref: d._id, tie: tie(d) };
  return [
    { ...base, prefix: listPrefix('d', d.event.event) },
    // A replay's command names the lead and the kind; an entry that names a sandbox lead is marked like every store.
    {
      ...base,
      prefix: listPrefix('dp', d.event.partner_id, d.event.event),
      fields: { lead_id: d.event.lead_id, ...testMark(d.event.test), ...(d.kind && { kind: d.kind }) },
    },
  ];
}

export function stateEntries(d: ListedDelivery, state: DeliveryState): ListEntry[] {
  const base = { at: d.created_at, ref: d._id, tie: tie(d), fields: { state } };
  return [
    { ...base, prefix: listPrefix('ds', state, d.event.event) },
    { ...base, prefix: listPrefix('dsp', state, d.event.partner_id, d.event.event) },
  ];
}

export function deliveryEntries(doc: ListedDelivery & Pick<DeliveryDoc, 'state'>): ListEntry[] {
  return [...steadyEntries(doc), ...stateEntries(doc, doc.state)];
}

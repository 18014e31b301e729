import type { LeadDoc } from '../shared/mongo/documents';
import type { LeadEvent } from '../shared/schemas';

const TRACKING_FIELDS = ['sub_id', 'click_id', 'source', 'funnel'] as const;
export type EventLead = Pick<
  LeadDoc,
  '_id' | 'partner_id' | 'external_id' | 'history' | 'test' | (typeof TRACKING_FIELDS)[number]
>;

// The event announcing history entry `seq` of a lead, or null for an entry the partner does not hear
// of (an idle lead handed to another agent). Deterministic: the same entry always gives the same
// event_id and content, however often it is published. A sandbox partner's lead marks its events
// test (for the delivery records and metrics; the callback body never carries it).
export function eventForHistoryEntry(lead: EventLead, seq: number): LeadEvent | null {
  const entry = lead.history[seq];
  if (!entry) throw new Error(`lead ${lead._id} has no history entry ${seq}`);
  if (entry.event === null) return null;
  const event: LeadEvent = {
    event_id: `${lead._id}:${seq}`,
    event: entry.event,
    lead_id: lead._id,
    partner_id: lead.partner_id,
    external_lead_id: lead.external_id,
    our_status: entry.to,
    is_depositor: entry.is_depositor,
    occurred_at: entry.at.toISOString(),
  };
  if (entry.event === 'lead.status_changed' && entry.from) event.from_status = entry.from;
  if (entry.event === 'lead.rejected' && entry.reason) event.reason = entry.reason;
  if (lead.test) event.test = true;
  const tracking = trackingOf(lead);
  if (tracking) event.tracking = tracking;
  return event;
}

// The lead's tracking fields for postback macros; never personal, never in a callback body.
function trackingOf(lead: EventLead): LeadEvent['tracking'] | null {
  const tracking: NonNullable<LeadEvent['tracking']> = {};
  for (const field of TRACKING_FIELDS) {
    const value = lead[field];
    if (typeof value === 'string' && value !== '') tracking[field] = value;
  }
  return Object.keys(tracking).length > 0 ? tracking : null;
}

// The events of history entries `from` onwards: what a change made, or (from 0) everything a lead
// announced, which a redelivered batch publishes again with the same ids.
export function eventsOf(lead: EventLead, from = 0): LeadEvent[] {
  const events: LeadEvent[] = [];
  for (let seq = from; seq < lead.history.length; seq++) {
    const event = eventForHistoryEntry(lead, seq);
    if (event) events.push(event);
  }
  return events;
}

import type { LeadAssignment, LeadEvent } from '../shared/schemas';
import { assignmentsAt, type FeedLead, type IsTerminal } from './assignment-feed';
import { eventForHistoryEntry, type EventLead } from './lead-events';

export interface Announcements {
  events: LeadEvent[]; // leads.events, for the partner's callbacks
  feed: LeadAssignment[]; // crm.lead-assignments, for the CRMs
}

// What history entries `seqs` of a lead announce. Both come from the same entries and go out in the
// same produce request, so no crash publishes a change's event without its feed message or the reverse.
export function announce(lead: EventLead & FeedLead, seqs: readonly number[], isTerminal: IsTerminal): Announcements {
  return {
    events: seqs.flatMap((seq) => eventForHistoryEntry(lead, seq) ?? []),
    feed: assignmentsAt(lead, seqs, isTerminal),
  };
}

// The indexes of a lead's history entries from `from` on: what a change appended, or (from 0)
// everything the lead announced, which a redelivered chunk announces again under the same ids.
export function entriesFrom(lead: { history: readonly unknown[] }, from = 0): number[] {
  return Array.from({ length: Math.max(0, lead.history.length - from) }, (_, i) => from + i);
}

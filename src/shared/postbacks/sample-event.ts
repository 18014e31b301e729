import type { LeadEvent } from '../schemas';

// The fictitious lead of test callbacks and postbacks and of template previews: no real lead has number 0.
export const SAMPLE_LEAD_ID = 'le-0';

const SAMPLE_STATES: Record<
  LeadEvent['event'],
  Pick<LeadEvent, 'our_status' | 'is_depositor' | 'from_status' | 'reason'>
> = {
  'lead.accepted': { our_status: 'new', is_depositor: false },
  'lead.rejected': { our_status: 'rejected', is_depositor: false, reason: 'country_blocked' },
  'lead.status_changed': { our_status: 'contacted', is_depositor: false, from_status: 'assigned' },
  'lead.ftd': { our_status: 'ftd', is_depositor: true },
  'lead.rtd': { our_status: 'rtd', is_depositor: true },
};

// A lead event as a real one of this kind would be, for the sample lead: event id "le-0:<tag>", the
// tag also its external id, and sample tracking fields so every macro has a value.
export function sampleLeadEvent(partnerId: string, event: LeadEvent['event'], at: Date, tag: string): LeadEvent {
  return {
    event_id: `${SAMPLE_LEAD_ID}:${tag}`,
    event,
    lead_id: SAMPLE_LEAD_ID,
    partner_id: partnerId,
    external_lead_id: tag,
    ...SAMPLE_STATES[event],
    occurred_at: at.toISOString(),
    tracking: { sub_id: 'sample-sub', click_id: 'sample-click', source: 'sample-source', funnel: 'sample-funnel' },
  };
}

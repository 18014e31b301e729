import { bucketField, bucketOf, rejectionCounter, type Counts } from '../../shared/reports/cell-counts';
import type { LeadEvent } from '../../shared/schemas';

// What the reports keep per lead (report_leads, `_id` = lead id): the fields its cell is keyed by,
// never a personal one, and how far its history has been counted.
export interface ReportLeadDoc {
  _id: string;
  partner_id: string;
  country_code: string | null;
  source: string | null;
  created_at: Date;
  day: string; // created_at in the partner's time zone, yyyy-mm-dd: the lead's cell for good
  through: number; // highest history index (event `<lead id>:<index>`) counted
  accepted_at: Date | null;
  rejected: boolean;
  contacted_at: Date | null;
  ftd_at: Date | null;
}

// One history entry of a lead, as its event announces it or as `leads.history` stores it.
export interface TallyEntry {
  index: number;
  event: LeadEvent['event'] | null; // null: a change the partner does not hear of (an idle lead reassigned)
  to: string;
  at: Date;
  reason?: string;
}

export interface LeadBase {
  _id: string;
  partner_id: string;
  country_code?: string | null;
  source?: string | null;
  created_at: Date;
}

export function newReportLead(base: LeadBase, day: string): ReportLeadDoc {
  return {
    _id: base._id,
    partner_id: base.partner_id,
    country_code: base.country_code ?? null,
    source: base.source ?? null,
    created_at: base.created_at,
    day,
    through: -1,
    accepted_at: null,
    rejected: false,
    contacted_at: null,
    ftd_at: null,
  };
}

// "Contacted": the lead's first status change made by an agent's outcome. Distribution only ever
// moves a lead to `assigned` and deposits only to ftd, rtd or chargeback, so among status changes
// an outcome is any other target: contacted, callback, interested, no_answer, wrong_number, trash
// or an installation's own code (an agent who called and got no answer did reach for the lead).
// Decided on what both the event and the stored history carry, so the projector and the rebuild agree.
export function isAgentOutcome(event: TallyEntry['event'], to: string): boolean {
  return event === 'lead.status_changed' && to !== 'assigned' && to !== 'chargeback';
}

const seconds = (from: Date | null, to: Date): number => (from === null ? 0 : (to.getTime() - from.getTime()) / 1000);

// Counts one entry of a lead's history into its cell, exactly once: an entry at or below `through`
// was counted before (a re-announced event after a crash, a replay). Pure: the new state and the
// cell's delta come out.
export function tally(state: ReportLeadDoc, entry: TallyEntry): { state: ReportLeadDoc; delta: Counts } {
  if (entry.index <= state.through) return { state, delta: {} };
  const next: ReportLeadDoc = { ...state, through: entry.index };
  const delta: Counts = {};
  switch (entry.event) {
    case 'lead.accepted':
      delta.received = 1;
      delta.accepted = 1;
      next.accepted_at = entry.at;
      break;
    case 'lead.rejected':
      delta.received = 1;
      delta[rejectionCounter(entry.reason)] = 1;
      next.rejected = true;
      break;
    case 'lead.status_changed':
      if (entry.to === 'chargeback') delta.chargebacks = 1;
      else if (isAgentOutcome(entry.event, entry.to) && state.contacted_at === null) {
        delta.contacted = 1;
        delta[bucketField('tc', bucketOf(seconds(state.accepted_at, entry.at)))] = 1;
        next.contacted_at = entry.at;
      }
      break;
    case 'lead.ftd':
      if (state.ftd_at === null) {
        delta.ftd = 1;
        delta[bucketField('tf', bucketOf(seconds(state.accepted_at, entry.at)))] = 1;
        next.ftd_at = entry.at;
      }
      break;
    case 'lead.rtd':
      delta.rtd = 1;
      break;
    case null:
      break;
  }
  return { state: next, delta };
}

// The history index of an event: its id is `<lead id>:<index>`.
export function eventIndex(eventId: string): number {
  return Number(eventId.slice(eventId.lastIndexOf(':') + 1));
}

export function entryOfEvent(e: LeadEvent): TallyEntry {
  return {
    index: eventIndex(e.event_id),
    event: e.event,
    to: e.our_status,
    at: new Date(e.occurred_at),
    ...(e.reason === undefined ? {} : { reason: e.reason }),
  };
}

export interface StoredEntry {
  event: TallyEntry['event'];
  to: string;
  at: Date;
  reason?: string;
}

export function entryOfHistory(h: StoredEntry, index: number): TallyEntry {
  return { index, event: h.event, to: h.to, at: h.at, ...(h.reason === undefined ? {} : { reason: h.reason }) };
}

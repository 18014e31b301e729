import { addCounts, isEmpty, type Counts } from '../../shared/reports/cell-counts';
import { cellField } from '../../shared/reports/cell-keys';
import type { OffsetDelta } from '../../shared/reports/cell-store';
import type { IntakeRefusal, LeadEvent } from '../../shared/schemas';
import {
  entryOfEvent,
  entryOfHistory,
  eventIndex,
  newReportLead,
  tally,
  type LeadBase,
  type ReportLeadDoc,
  type StoredEntry,
} from './lead-tally';

// What one Kafka message adds to one cell of a partner-day: the offset guard (cell-store.ts) applies
// it only to a counter document whose writer has not seen that offset yet.
export type Contribution = OffsetDelta;

export interface OffsetEvent {
  partition: number;
  offset: number;
  event: LeadEvent;
}

export interface StoredLead extends LeadBase {
  history: StoredEntry[];
  test?: true;
}

export type DayOf = (partnerId: string, at: Date) => string;

// The leads of a chunk whose stored document must be read: those the reports do not know yet (their
// country, source and creation), and those with a gap before one of the chunk's events (history
// entries the partner does not hear of, or an event still on its way): the gap is counted from
// the stored history, which every event only announces.
export function leadsToRead(records: readonly OffsetEvent[], known: ReadonlyMap<string, ReportLeadDoc>): string[] {
  const through = new Map<string, number>();
  const read = new Set<string>();
  for (const { event } of records) {
    if (event.test) continue;
    const id = event.lead_id;
    const state = known.get(id);
    if (!state) read.add(id);
    const t = through.get(id) ?? state?.through ?? -1;
    const index = eventIndex(event.event_id);
    if (index > t + 1) read.add(id);
    through.set(id, Math.max(t, index));
  }
  return [...read];
}

export interface Projected {
  contributions: Contribution[];
  changed: Map<string, ReportLeadDoc>; // the states to store
  unknown: string[]; // events of leads with no stored document: not counted
}

// Folds a chunk of lead events (one partition, offset order) into cell contributions and new lead
// states. Sandbox leads (test) are left out of the reports.
export function projectLeadEvents(
  records: readonly OffsetEvent[],
  known: ReadonlyMap<string, ReportLeadDoc>,
  stored: ReadonlyMap<string, StoredLead>,
  dayOf: DayOf,
): Projected {
  const states = new Map(known);
  const out: Projected = { contributions: [], changed: new Map(), unknown: [] };
  for (const { offset, event } of records) {
    if (event.test) continue;
    const lead = stored.get(event.lead_id);
    let state = states.get(event.lead_id);
    if (!state) {
      if (!lead) {
        out.unknown.push(event.event_id);
        continue;
      }
      state = newReportLead(lead, dayOf(lead.partner_id, lead.created_at));
    }
    const entry = entryOfEvent(event);
    if (entry.index <= state.through) continue;
    const delta: Counts = {};
    // A gap: the entries between are counted from the stored history (immutable, append only),
    // never beyond this event, so a replay of this message counts exactly the same.
    for (let i = state.through + 1; i < entry.index && lead && i < lead.history.length; i++) {
      const filled = tally(state, entryOfHistory(lead.history[i] as StoredEntry, i));
      state = filled.state;
      addCounts(delta, filled.delta);
    }
    const counted = tally(state, entry);
    state = counted.state;
    addCounts(delta, counted.delta);
    states.set(event.lead_id, state);
    out.changed.set(event.lead_id, state);
    if (!isEmpty(delta))
      out.contributions.push({
        offset,
        day: state.day,
        partnerId: state.partner_id,
        field: cellField(state.country_code, state.source),
        delta,
      });
  }
  return out;
}

export interface OffsetRefusal {
  partition: number;
  offset: number;
  refusal: IntakeRefusal;
}

// Duplicates and validation errors are not leads: each fresh answer the ingress reported is one
// received request, counted on the day it was answered (partner's zone).
export function projectRefusals(records: readonly OffsetRefusal[], dayOf: DayOf): Contribution[] {
  return records.map(({ offset, refusal }) => ({
    offset,
    day: dayOf(refusal.partner_id, new Date(refusal.at)),
    partnerId: refusal.partner_id,
    field: cellField(refusal.country_code, refusal.source),
    delta: { received: 1, [refusal.status === 'duplicate' ? 'duplicates' : 'validation_errors']: 1 },
  }));
}

// Every lead entry of a whole stored lead, as the rebuild counts it: the same fold as the projector.
export function tallyWholeLead(lead: StoredLead, day: string): { state: ReportLeadDoc; delta: Counts } {
  let state = newReportLead(lead, day);
  const delta: Counts = {};
  lead.history.forEach((h, i) => {
    const counted = tally(state, entryOfHistory(h, i));
    state = counted.state;
    addCounts(delta, counted.delta);
  });
  return { state, delta };
}

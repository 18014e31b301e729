import type { StoredLead } from '../../src/processor/reports/event-projection';
import type { LeadEvent } from '../../src/shared/schemas';

// One stored lead of the reports' unit tests, its history as lead events, and their deltas summed.
export const T0 = new Date('2026-11-20T10:00:00Z');
export const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

export const ev = (
  lead: string,
  index: number,
  event: LeadEvent['event'],
  to: string,
  when: Date,
  extra: Partial<LeadEvent> = {},
): LeadEvent => ({
  event_id: `${lead}:${index}`,
  event,
  lead_id: lead,
  partner_id: 'pa-1',
  external_lead_id: `x-${lead}`,
  our_status: to,
  is_depositor: false,
  occurred_at: when.toISOString(),
  ...extra,
});

export const stored: StoredLead = {
  _id: 'le-7',
  partner_id: 'pa-1',
  country_code: 'DE',
  source: 'google.ads',
  created_at: T0,
  history: [
    { event: 'lead.accepted', to: 'new', at: T0 },
    { event: 'lead.status_changed', to: 'assigned', at: at(0) },
    { event: 'lead.status_changed', to: 'contacted', at: at(12) },
    { event: 'lead.ftd', to: 'ftd', at: at(90) },
    { event: 'lead.rtd', to: 'rtd', at: at(100) },
    { event: 'lead.status_changed', to: 'chargeback', at: at(200) },
  ],
};
export const events = stored.history.map((h, i) => ev('le-7', i, h.event as LeadEvent['event'], h.to, h.at));
export const sum = (cs: { delta: Record<string, number> }[]) =>
  cs.reduce<Record<string, number>>((a, c) => {
    for (const [k, n] of Object.entries(c.delta)) a[k] = (a[k] ?? 0) + n;
    return a;
  }, {});

import type { PartnerDoc } from '../../../shared/mongo/documents';
import type { DeliveryView } from '../../../manager/delivery-queue';
import type { LeadRow } from '../../../manager/lead-list';
import type { LeadView } from '../../../manager/lead-view';
import type { Figures } from '../../../manager/reports/report-rows';

// What a partner sees of its leads, deliveries and numbers: the manager's views with what is not
// the partner's to know left out (agents, who retried, other partners, money, personal data beyond
// a masked phone). Pure.
type Mapping = Pick<PartnerDoc, 'status_mapping'>;

const theirStatus = (partner: Mapping, ours: string): string => partner.status_mapping?.[ours] ?? ours;

export interface LeadExtras {
  phone: string | null;
  reason: string | null;
}

export function portalLeadRow(row: LeadRow, extras: LeadExtras, partner: Mapping) {
  return {
    id: row.id,
    external_id: row.external_id,
    status: theirStatus(partner, row.status),
    our_status: row.status,
    is_depositor: row.is_depositor,
    reason: extras.reason,
    country: row.country_code,
    source: row.source,
    phone: extras.phone,
    test: row.test,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

// The lead with the events it was told of: a status change whose event made a callback or a
// postback for it (sent, being sent, or dead). Changes it never heard of are not shown.
export function portalLead(lead: LeadView, phone: string | null, partner: Mapping) {
  const byEvent = new Map<string, DeliveryView[]>();
  for (const d of lead.deliveries) byEvent.set(d.event_id, [...(byEvent.get(d.event_id) ?? []), d]);
  const timeline = lead.history.flatMap((h) => {
    const deliveries = h.event_id === null ? undefined : byEvent.get(h.event_id);
    if (!deliveries || h.event === null) return [];
    return [
      {
        event_id: h.event_id as string,
        event: h.event,
        status: theirStatus(partner, h.to),
        our_status: h.to,
        at: h.at,
        reason: h.reason,
        deliveries: deliveries.map((d) => ({ id: d.id, kind: d.kind, state: d.state })),
      },
    ];
  });
  return {
    ...portalLeadRow(
      { ...lead, country_code: lead.details.country_code ?? null, source: lead.details.source ?? null },
      { phone, reason: lead.reason },
      partner,
    ),
    details: lead.details,
    personal_data: lead.personal_data,
    timeline,
  };
}

export const EXCERPT_CHARS = 200;

export function excerpt(body: string | null | undefined): string | null {
  if (body === null || body === undefined) return null;
  return body.length > EXCERPT_CHARS ? `${body.slice(0, EXCERPT_CHARS)}…` : body;
}

export function portalDelivery(d: DeliveryView) {
  return {
    id: d.id,
    kind: d.kind,
    event: d.event,
    event_id: d.event_id,
    lead_id: d.lead_id,
    state: d.state,
    attempts_made: d.attempts_made,
    attempts_left: d.attempts_left,
    next_attempt_at: d.next_attempt_at,
    last_http_status: d.last_http_status,
    last_error: d.last_error,
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      at: a.at,
      http_status: a.http_status,
      duration_ms: a.duration_ms,
      error: a.error,
      excerpt: excerpt(a.response_body),
      ...(a.url !== undefined && { url: a.url }),
    })),
    // When, never by whom: the person who retried may be one of our managers.
    retried_at: d.manual_retries.map((r) => r.at),
    ...(d.held_by !== undefined && { held_by: d.held_by }),
    test: d.test,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

export function portalTotals(f: Figures) {
  return {
    received: f.received,
    accepted: f.accepted,
    duplicates: f.duplicates,
    validation_errors: f.validation_errors,
    rejected: f.rejected,
    rejected_by_reason: f.rejected_by_reason,
    contacted: f.contacted,
    ftd: f.ftd,
    ftd_rate: f.ftd_conversion,
    chargebacks: f.chargebacks,
    chargeback_rate: f.chargeback_rate,
  };
}

// A replay job as the partner sees it: who asked is not said (a manager may have).
export function portalReplay(job: {
  _id: string;
  from: Date;
  to: Date;
  events: string[];
  state: string;
  found: number;
  sent: number;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  error: string | null;
}) {
  const { _id, from, to, events, state, found, sent, created_at, updated_at, finished_at, error } = job;
  return { id: _id, from, to, events, state, found, sent, created_at, updated_at, finished_at, error };
}

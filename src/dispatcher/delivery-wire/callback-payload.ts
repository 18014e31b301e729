import type { CallbackPayload, LeadEvent } from '../../shared/schemas';

// The body a partner receives (spec 2.4). `status` is in the partner's terms (status_mapping; a code
// with no entry is sent unchanged), everything else in ours, from_status included (3.3 maps only
// `status`). `reason` only on lead.rejected, `from_status` only on lead.status_changed. Key order
// is fixed so the same event always serialises to the same bytes.
export function buildCallbackPayload(
  event: LeadEvent,
  statusMapping: Readonly<Record<string, string>>,
): CallbackPayload {
  const payload: CallbackPayload = {
    event: event.event,
    external_lead_id: event.external_lead_id,
    internal_id: event.lead_id,
    status: mappedStatus(event.our_status, statusMapping),
    our_status: event.our_status,
    is_depositor: event.is_depositor,
    timestamp: new Date(event.occurred_at).toISOString(),
  };
  if (event.event === 'lead.rejected' && event.reason !== undefined) payload.reason = event.reason;
  if (event.event === 'lead.status_changed' && event.from_status !== undefined) payload.from_status = event.from_status;
  return payload;
}

// Own keys only: a status named "constructor" must not pick up Object.prototype.constructor.
function mappedStatus(status: string, mapping: Readonly<Record<string, string>>): string {
  return Object.prototype.hasOwnProperty.call(mapping, status) ? (mapping[status] as string) : status;
}

import { deliveryId } from '../shared/ids';
import { findByIds } from '../shared/mongo/bulk';
import { LEAD_DETAIL_FIELDS, type LeadDoc } from '../shared/mongo/documents';
import type { Runtime } from '../shared/runtime';
import { leadRefId } from '../shared/store/lead-refs';
import { deliveryView, type DeliveryView } from './delivery-queue';

// A lead as managers see it: status, history and the callbacks its events made. Never a phone,
// email or other personal field (those stay encrypted), never money (deposits are not read).
export interface LeadView {
  id: string;
  affiliate_id: string;
  external_id: string;
  status: string;
  is_depositor: boolean;
  agent_id: string | null;
  client_id: string | null;
  reason: string | null;
  details: Partial<Record<(typeof LEAD_DETAIL_FIELDS)[number], string>>;
  history: { event_id: string; event: string; from: string | null; to: string; at: Date; why: string; source: string; reason: string | null }[];
  deliveries: DeliveryView[];
  created_at: Date;
  updated_at: Date;
}

export async function findLead(rt: Runtime, id: string): Promise<LeadView | null> {
  const lead = await rt.mongo.collections.leads.findOne({ _id: id });
  return lead && leadView(rt, lead);
}

// The partner's name for a lead, through the same point read the partner's status lookup uses.
export async function findLeadByExternalId(rt: Runtime, partnerId: string, externalId: string): Promise<LeadView | null> {
  const ref = await rt.mongo.collections.leadRefs.findOne({ _id: leadRefId(partnerId, externalId) });
  return ref && findLead(rt, ref.lead_id);
}

async function leadView(rt: Runtime, lead: LeadDoc): Promise<LeadView> {
  const eventIds = lead.history.map((_, i) => `${lead._id}:${i}`);
  // Delivery ids follow from (event id, partner): indexed reads by _id, no scan.
  const ids = eventIds.map((e) => deliveryId(e, lead.partner_id));
  const found = await findByIds(rt.mongo.collections.deliveries, ids);
  const deliveries = ids.flatMap((d) => found.get(d) ?? []);
  const details: LeadView['details'] = {};
  for (const field of LEAD_DETAIL_FIELDS) if (typeof lead[field] === 'string') details[field] = lead[field];
  return {
    id: lead._id,
    affiliate_id: lead.partner_id,
    external_id: lead.external_id,
    status: lead.status,
    is_depositor: lead.is_depositor,
    agent_id: lead.agent_id,
    client_id: lead.client_id,
    reason: lead.reason,
    details,
    history: lead.history.map((h, i) => ({
      event_id: eventIds[i]!, event: h.event, from: h.from, to: h.to, at: h.at, why: h.why, source: h.source, reason: h.reason ?? null,
    })),
    deliveries: deliveries.map(deliveryView),
    created_at: lead.created_at,
    updated_at: lead.updated_at,
  };
}

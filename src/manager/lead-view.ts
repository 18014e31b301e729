import type { Collection } from 'mongodb';
import { deliveryId } from '../shared/ids';
import { findByIds } from '../shared/mongo/bulk';
import {
  LEAD_DETAIL_FIELDS,
  type DeliveryDoc,
  type LeadDoc,
  type LeadRefDoc,
  type LeadRisk,
} from '../shared/mongo/documents';
import { leadRefId } from '../shared/store/lead-refs';
import { deliveryView, type DeliveryView } from './delivery-queue';
import { ALL_PARTNERS, inPartnerScope, type PartnerScope } from './partner-scope';

// A lead as managers and agents see it: routing fields, status and history, fraud signals and the
// sandbox mark. Never a phone, email or other personal field (not even as ciphertext or hash),
// never money (deposits are not read).
export interface LeadSummary {
  id: string;
  affiliate_id: string;
  external_id: string;
  status: string;
  is_depositor: boolean;
  agent_id: string | null;
  client_id: string | null;
  reason: string | null;
  details: Partial<Record<(typeof LEAD_DETAIL_FIELDS)[number], string>>;
  risk: LeadRisk | null; // null for leads stored before fraud signals
  test: boolean;
  personal_data: 'kept' | 'erased';
  personal_erased_at: Date | null;
  // event and event_id null for a change the partner does not hear of (an idle lead handed to another
  // agent, agent_id naming the new one).
  history: {
    event_id: string | null;
    event: string | null;
    from: string | null;
    to: string;
    at: Date;
    why: string;
    source: string;
    reason: string | null;
    agent_id?: string;
  }[];
  created_at: Date;
  updated_at: Date;
}

// One lead with the callbacks its events made.
export interface LeadView extends LeadSummary {
  deliveries: DeliveryView[];
}

export function leadSummary(lead: LeadDoc): LeadSummary {
  const details: LeadSummary['details'] = {};
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
    risk: lead.risk ?? null,
    test: lead.test === true,
    personal_data: lead.personal_erased_at ? 'erased' : 'kept',
    personal_erased_at: lead.personal_erased_at ?? null,
    history: lead.history.map((h, i) => ({
      event_id: h.event === null ? null : `${lead._id}:${i}`,
      event: h.event,
      from: h.from,
      to: h.to,
      at: h.at,
      why: h.why,
      source: h.source,
      reason: h.reason ?? null,
      ...(h.agent_id ? { agent_id: h.agent_id } : {}),
    })),
    created_at: lead.created_at,
    updated_at: lead.updated_at,
  };
}

export interface LeadLookupDeps {
  leads: Collection<LeadDoc>;
  leadRefs: Collection<LeadRefDoc>;
  deliveries: Collection<DeliveryDoc>;
}

// One lead by our id or by its partner's external id, with the callbacks its events made.
export class LeadLookup {
  constructor(private readonly d: LeadLookupDeps) {}

  doc(id: string): Promise<LeadDoc | null> {
    return this.d.leads.findOne({ _id: id });
  }

  // A lead of a partner outside the scope is not found (its deliveries are not read).
  async find(id: string, scope: PartnerScope = ALL_PARTNERS): Promise<LeadView | null> {
    const lead = await this.doc(id);
    return lead && inPartnerScope(scope, lead.partner_id) ? this.withDeliveries(lead) : null;
  }

  // The partner's name for a lead, through the same point read the partner's status lookup uses.
  async byExternalId(partnerId: string, externalId: string): Promise<LeadView | null> {
    const ref = await this.d.leadRefs.findOne({ _id: leadRefId(partnerId, externalId) });
    return ref && this.find(ref.lead_id);
  }

  // The lead with the callbacks and postbacks its events made (the caller has checked it may see it).
  async withDeliveries(lead: LeadDoc): Promise<LeadView> {
    const summary = leadSummary(lead);
    // Delivery ids follow from (event id, partner, kind): indexed reads by _id, no scan.
    const ids = summary.history.flatMap((h) =>
      h.event_id === null
        ? []
        : [deliveryId(h.event_id, lead.partner_id), deliveryId(h.event_id, lead.partner_id, 'postback')],
    );
    const found = await findByIds(this.d.deliveries, ids);
    return { ...summary, deliveries: ids.flatMap((d) => found.get(d) ?? []).map(deliveryView) };
  }
}

import type { Collection } from 'mongodb';
import type { LeadDoc, PartnerDoc } from '../../shared/mongo/documents';
import type { Statuses } from '../../shared/status-catalog';
import { leadSummary, type LeadSummary } from '../lead-view';
import type { MaskedPhones } from './masked-phones';
import { allowedOutcomes, type Outcome } from './outcomes';

// A lead as its agent works it: who sent it, where it is from, its history, whether it deposited
// (never an amount), the number masked (the whole number only through the audited contact reveal)
// and the outcomes its status allows.
export interface LeadCard extends Pick<
  LeadSummary,
  | 'id'
  | 'affiliate_id'
  | 'status'
  | 'is_depositor'
  | 'agent_id'
  | 'history'
  | 'personal_data'
  | 'created_at'
  | 'updated_at'
> {
  partner_name: string | null;
  country: string | null;
  country_code: string | null;
  language: string | null;
  source: string | null;
  funnel: string | null;
  phone: string | null;
  callback_at: Date | null;
  outcomes: Outcome[];
}

export interface LeadCardDeps {
  leads: Collection<LeadDoc>;
  phones: MaskedPhones;
  partners: { find(id: string): Promise<Pick<PartnerDoc, 'name'> | null> };
  statuses: Statuses;
}

export class LeadCards {
  constructor(private readonly d: LeadCardDeps) {}

  // The card of a lead with the agent `agentId`; null for any other lead (not theirs to know of).
  async of(leadId: string, agentId: string): Promise<LeadCard | null> {
    const lead = await this.d.leads.findOne({ _id: leadId });
    if (!lead || lead.agent_id !== agentId) return null;
    const [phones, partner] = await Promise.all([this.d.phones.of([lead]), this.d.partners.find(lead.partner_id)]);
    const { id, affiliate_id, status, is_depositor, agent_id, history, personal_data, created_at, updated_at } =
      leadSummary(lead);
    return {
      id,
      affiliate_id,
      partner_name: partner?.name ?? null,
      status,
      is_depositor,
      agent_id,
      history,
      personal_data,
      created_at,
      updated_at,
      country: lead.country ?? null,
      country_code: lead.country_code ?? null,
      language: lead.language ?? null,
      source: lead.source ?? null,
      funnel: lead.funnel ?? null,
      phone: phones.get(lead._id) ?? null,
      callback_at: lead.callback_at ?? null,
      outcomes: lead.personal_erased_at ? [] : allowedOutcomes(this.d.statuses, lead.status),
    };
  }
}

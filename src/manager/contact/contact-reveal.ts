import type { Collection } from 'mongodb';
import type { Counter } from 'prom-client';
import type { AuditActor } from '../../shared/audit';
import type { PiiCipher } from '../../shared/crypto/pii-cipher';
import { ApiError } from '../../shared/errors';
import type { AgentDoc, LeadDoc } from '../../shared/mongo/documents';
import type { Statuses } from '../../shared/status-catalog';
import type { LeadKeyStore } from '../../shared/store/lead-keys';
import type { AuditLog } from '../audit-log';
import type { Principal } from '../../identity/principal';
import { openContact, type LeadContact } from './lead-contact';
import { decideReveal, supervisorToCheck, type RevealCaller } from './reveal-access';
import type { RevealOutcome } from './reveal-metrics';
import type { RevealQuota } from './reveal-quota';

export interface ContactRevealDeps {
  leads: Collection<LeadDoc>;
  agents: Collection<AgentDoc>;
  keys: Pick<LeadKeyStore, 'byLeads'>;
  keyring: PiiCipher;
  statuses: Pick<Statuses, 'isTerminal'>;
  quota: Pick<RevealQuota, 'take' | 'perHour'>;
  audit: Pick<AuditLog, 'record'>;
  reveals: Counter<'outcome'>;
}

type Refusal = { outcome: Exclude<RevealOutcome, 'revealed'>; agentId: string | null; error: ApiError };

// A service account that names no agent sent an incomplete request; an agent's account linked to no
// agent record may reveal nothing at all.
function noAgent(caller: RevealCaller): ApiError {
  return caller.kind === 'service_account'
    ? new ApiError('invalid_request', { detail: 'a service account names the agent it acts for: ?agent_id=' })
    : new ApiError('forbidden', {
        permission: 'contacts.reveal as an agent (this account is linked to no agent record)',
      });
}

// One reveal of a lead's contact: read the lead (and, for a supervisor, its agent's team), decide,
// open the contact, take a place in the agent's quota, audit, answer. Every outcome is counted and
// audited (who, for which agent, which lead; never the contact).
export class ContactReveal {
  constructor(private readonly d: ContactRevealDeps) {}

  async reveal(
    principal: Principal,
    actor: AuditActor,
    leadId: string,
    requestedAgentId: string | null,
  ): Promise<LeadContact> {
    const caller: RevealCaller = {
      kind: principal.kind,
      id: principal.id,
      role: principal.role,
      agentId: principal.agentId,
      requestedAgentId,
    };
    const lead = await this.d.leads.findOne({ _id: leadId });
    if (lead === null)
      return this.refuse(actor, leadId, null, {
        outcome: 'not_found',
        agentId: null,
        error: new ApiError('not_found'),
      });
    const verdict = decideReveal(
      caller,
      {
        agentId: lead.agent_id,
        terminal: this.d.statuses.isTerminal(lead.status),
        erased: Boolean(lead.personal_erased_at),
      },
      await this.supervisorOf(supervisorToCheck(caller, lead.agent_id)),
    );
    switch (verdict.outcome) {
      case 'no_agent':
        return this.refuse(actor, leadId, lead, { ...verdict, agentId: null, error: noAgent(caller) });
      case 'not_found':
        return this.refuse(actor, leadId, lead, { ...verdict, error: new ApiError('not_found') });
      case 'erased':
        return this.refuse(actor, leadId, lead, { ...verdict, error: new ApiError('personal_data_erased') });
      case 'revealed':
        break;
    }
    const { agentId } = verdict;
    const contact = openContact(this.d.keyring, lead, (await this.d.keys.byLeads([lead])).get(lead._id));
    if (contact === null)
      return this.refuse(actor, leadId, lead, {
        outcome: 'erased',
        agentId,
        error: new ApiError('personal_data_erased'),
      });
    const place = await this.d.quota.take(agentId);
    if (!place.allowed) {
      const error = new ApiError(
        'reveal_quota_exceeded',
        { agent_id: agentId, limit: this.d.quota.perHour, seconds: place.retryAfterS },
        { 'retry-after': String(place.retryAfterS) },
      );
      return this.refuse(actor, leadId, lead, { outcome: 'quota_exceeded', agentId, error });
    }
    await this.d.audit.record(actor, 'lead.contact_reveal', {
      partnerId: lead.partner_id,
      target: lead._id,
      details: { agent_id: agentId, outcome: 'revealed' },
    });
    this.d.reveals.inc({ outcome: 'revealed' });
    return contact;
  }

  private async supervisorOf(agentId: string | null): Promise<string | null> {
    if (agentId === null) return null;
    const agent = await this.d.agents.findOne({ _id: agentId }, { projection: { supervisor_id: 1 } });
    return agent?.supervisor_id ?? null;
  }

  // A refusal is audited like a reveal (the lead's partner only when the lead exists), then answered.
  private async refuse(actor: AuditActor, leadId: string, lead: LeadDoc | null, r: Refusal): Promise<never> {
    await this.d.audit.record(actor, 'lead.contact_reveal', {
      partnerId: lead?.partner_id ?? null,
      target: leadId,
      details: { agent_id: r.agentId, outcome: r.outcome, refused: r.error.code, http_status: r.error.status },
    });
    this.d.reveals.inc({ outcome: r.outcome });
    throw r.error;
  }
}

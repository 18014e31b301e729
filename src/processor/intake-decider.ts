import { isDuplicateKey } from '../shared/mongo/client';
import { LEAD_DETAIL_FIELDS, type IntakeDecisionDoc, type LeadDoc, type PartnerDoc } from '../shared/mongo/documents';
import { leadId as formatLeadId } from '../shared/ids';
import type { Runtime } from '../shared/runtime';
import type { IntakeCommand, IntakeDecision } from '../shared/schemas';
import { rejectionReason, type RuleSet } from './business-rules';
import { DedupClaims } from './dedup-claims';
import type { IdAllocator } from './id-allocator';

const DAY_MS = 86_400_000;

export interface DecidedIntake {
  decision: IntakeDecision;
  lead: LeadDoc | null; // the stored lead when this call created or confirmed it
}

// Decides one intake command: replay, business-rule rejection, duplicate, or acceptance. Idempotent
// per (partner, Idempotency-Key): a redelivered or re-sent command yields the stored decision, and
// a crash at any step is completed by the redelivery (claims, lead and decision are keyed by it).
export class IntakeDecider {
  private readonly claims: DedupClaims;

  constructor(private readonly rt: Runtime, private readonly ids: IdAllocator, private readonly globalRules: RuleSet) {
    this.claims = new DedupClaims(rt.mongo.collections.dedupClaims, rt.mongo.collections.leads, rt.locks);
  }

  async decide(cmd: IntakeCommand, now: Date): Promise<DecidedIntake> {
    const decisionId = `${cmd.partner_id}:${cmd.idempotency_key}`;
    const stored = await this.rt.mongo.collections.intakeDecisions.findOne({ _id: decisionId });
    if (stored) return { decision: replayOf(stored, cmd.body_hash), lead: null };

    const partner = await this.rt.partners.byId(cmd.partner_id);
    // Only possible if a partner vanished between authentication and decision; never retried.
    if (!partner) return { decision: decision(cmd, 'rejected', null, 'partner_unknown'), lead: null };

    const reason = rejectionReason(cmd.lead, this.globalRules, {
      blockedCountries: partner.blocked_countries ?? [],
      blockedSources: partner.blocked_sources ?? [],
      blockedIpRanges: partner.blocked_ip_ranges ?? [],
    });
    const result = reason ? await this.reject(cmd, reason, now) : await this.accept(cmd, partner, decisionId, now);
    await this.store(decisionId, cmd.partner_id, result.decision, now);
    return result;
  }

  private async reject(cmd: IntakeCommand, reason: string, now: Date): Promise<DecidedIntake> {
    const lead = await this.insertLead(cmd, formatLeadId(await this.ids.allocate()), 'rejected', reason, now);
    if ('conflict' in lead) return { decision: decision(cmd, 'duplicate', lead.conflict, `external_id_taken:${lead.conflict.slice(3)}`), lead: null };
    return { decision: decision(cmd, 'rejected', lead._id, reason), lead };
  }

  private async accept(cmd: IntakeCommand, partner: PartnerDoc, owner: string, now: Date): Promise<DecidedIntake> {
    const scope = partner.dedup_scope === 'partner' ? `p:${partner._id}` : 'g';
    const keys = [`${scope}:phone:${cmd.lead.phone_hash}`];
    if (cmd.lead.email_hash) keys.push(`${scope}:email:${cmd.lead.email_hash}`);
    const claim = await this.claims.claim({
      keys,
      owner,
      windowMs: (partner.dedup_window_days ?? this.rt.config.rules.dedupWindowDays) * DAY_MS,
      now,
      allocateLeadId: async () => formatLeadId(await this.ids.allocate()),
    });
    if (claim.kind === 'duplicate') {
      return { decision: decision(cmd, 'duplicate', claim.leadId, `matched_lead:${claim.leadId.slice(3)}`), lead: null };
    }
    const lead = await this.insertLead(cmd, claim.leadId, 'new', null, now);
    if ('conflict' in lead) {
      await this.claims.release(keys, owner);
      return { decision: decision(cmd, 'duplicate', lead.conflict, `external_id_taken:${lead.conflict.slice(3)}`), lead: null };
    }
    return { decision: decision(cmd, 'accepted', lead._id, null), lead };
  }

  // Inserts the lead with its first history entry (its first event). A duplicate key on the
  // command's own identity means an earlier attempt stored it: that lead is the result. A
  // duplicate external_id of the same partner is a conflict with another lead.
  private async insertLead(cmd: IntakeCommand, id: string, status: 'new' | 'rejected', reason: string | null, now: Date): Promise<LeadDoc | { conflict: string }> {
    const leads = this.rt.mongo.collections.leads;
    const { lead } = cmd;
    const doc: LeadDoc = {
      _id: id,
      seq: Number(id.slice(3)),
      partner_id: cmd.partner_id,
      external_id: lead.external_id,
      idempotency_key: cmd.idempotency_key,
      status,
      is_depositor: false,
      client_id: null,
      agent_id: null,
      reason,
      history: [{
        from: null, to: status, at: now, why: reason ?? 'accepted at intake', source: 'intake',
        event: status === 'new' ? 'lead.accepted' : 'lead.rejected', is_depositor: false, ...(reason ? { reason } : {}),
      }],
      published_seq: 0,
      pending_events: 1,
      applied_ops: [],
      phone_enc: lead.phone_enc,
      phone_hash: lead.phone_hash,
      email_enc: lead.email_enc ?? null,
      email_hash: lead.email_hash ?? null,
      ...optional(lead),
      ip: lead.ip,
      created_at: now,
      updated_at: now,
    };
    try {
      await leads.insertOne(doc);
      return doc;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const mine = await leads.findOne({ partner_id: cmd.partner_id, idempotency_key: cmd.idempotency_key });
    if (mine) return mine;
    const other = await leads.findOne({ partner_id: cmd.partner_id, external_id: lead.external_id }, { projection: { _id: 1 } });
    if (other) return { conflict: other._id };
    throw new Error(`lead id ${id} is already taken by another command`);
  }

  private async store(id: string, partnerId: string, d: IntakeDecision, now: Date): Promise<void> {
    const doc: IntakeDecisionDoc = { _id: id, partner_id: partnerId, ...d, replay: false, decided_at: now };
    try {
      await this.rt.mongo.collections.intakeDecisions.insertOne(doc);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
}

function decision(cmd: IntakeCommand, outcome: IntakeDecision['outcome'], leadId: string | null, reason: string | null): IntakeDecision {
  return { outcome, lead_id: leadId, reason, body_hash: cmd.body_hash, replay: false };
}

function replayOf(stored: IntakeDecisionDoc, bodyHash: string): IntakeDecision {
  if (stored.body_hash !== bodyHash) return { outcome: 'idempotency_mismatch', lead_id: null, reason: null, body_hash: bodyHash, replay: false };
  return { outcome: stored.outcome, lead_id: stored.lead_id, reason: stored.reason, body_hash: stored.body_hash, replay: true };
}

function optional(lead: IntakeCommand['lead']): Partial<LeadDoc> {
  const out: Partial<LeadDoc> = {};
  for (const f of LEAD_DETAIL_FIELDS) if (lead[f] !== undefined) Object.assign(out, { [f]: lead[f] });
  if (lead.metadata !== undefined) out.metadata_json = JSON.stringify(lead.metadata);
  return out;
}

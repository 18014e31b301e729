import { testMark, type IntakeDecisionDoc, type LeadDoc } from '../../shared/mongo/documents';
import type { IntakeCommand } from '../../shared/schemas';
import { decisionId, type IntakeDecisionStore } from '../../shared/store/intake-decisions';
import type { LeadKeyStore } from '../../shared/store/lead-keys';
import { leadRefId, type LeadRefStore } from '../../shared/store/lead-refs';
import type { LeadStore } from '../../shared/store/leads';
import type { AgentRoster } from '../agent-roster';
import type { DedupClaims } from '../dedup-claims';
import type { DedupHashes } from '../lead-opener';
import { newLeadDoc } from '../new-lead';
import type { WaitingLeads } from '../waiting-leads';
import type { Candidate } from './candidates';

export interface PersistDeps {
  decisions: IntakeDecisionStore;
  claims: DedupClaims;
  refs: LeadRefStore;
  leads: LeadStore;
  waiting: WaitingLeads;
  roster: AgentRoster;
  keys: LeadKeyStore;
}

// The persist step of an intake chunk: the new leads (with their data keys, and those waiting for an
// agent), then, once the replies and events are out, the decisions; and, for a command given up
// on, its claims given back.
export class PersistStep {
  constructor(private readonly d: PersistDeps) {}

  // The leads of the commands that create one, each handed to an agent now or left waiting; a lead
  // that exists already (a chunk decided again) is read back, never written twice.
  async createLeads(creators: Candidate[], now: Date): Promise<Map<string, LeadDoc>> {
    await this.d.roster.current();
    const docs = creators.map((c) =>
      newLeadDoc(
        c.cmd,
        c.leadId,
        { decidedAt: now, createdAt: c.firstAt },
        c.reject
          ? { kind: 'rejected', reason: c.reject }
          : { kind: 'accepted', agent: c.test ? null : this.d.roster.take(c.cmd.lead, now) },
        { risk: c.risk, test: c.test, hashes: c.hashes },
      ),
    );
    await this.d.keys.insertNew(
      creators.flatMap((c) =>
        c.cmd.lead.dek_enc === undefined || c.erased
          ? []
          : [
              {
                _id: c.leadId,
                dek_enc: c.cmd.lead.dek_enc,
                ...(c.cmd.lead.key_ref !== undefined && { key_ref: c.cmd.lead.key_ref }),
                created_at: c.firstAt,
                ...testMark(c.test),
              },
            ],
      ),
    );
    const existed = await this.d.leads.insertNew(docs);
    const stored = existed.size > 0 ? await this.d.leads.byIds(existed) : new Map<string, LeadDoc>();
    // An existing lead is this command's own (decided before), never another's under a reused id.
    for (const doc of docs) {
      const found = stored.get(doc._id);
      if (found && (found.partner_id !== doc.partner_id || found.idempotency_key !== doc.idempotency_key)) {
        throw new Error(`lead id ${doc._id} belongs to another command: not answering with its lead`);
      }
    }
    const leads = new Map(docs.map((doc) => [doc._id, stored.get(doc._id) ?? doc]));
    // A sandbox lead is never distributed: it does not wait for an agent either.
    await this.d.waiting.add(docs.filter((doc) => !existed.has(doc._id) && doc.status === 'new' && !doc.test));
    return leads;
  }

  // A redelivered chunk decides the same again (its claims name their command), so a decision
  // another instance stored first is the same decision: nothing to do about the conflict.
  async storeDecisions(docs: readonly IntakeDecisionDoc[], now: Date): Promise<void> {
    await this.d.decisions.insertNew(docs, now);
  }

  // Gives back whatever a command given up on holds (claims and its ref, in either dedup scope), so a
  // command that failed half-way blocks no later lead; unless it got as far as creating its lead.
  async abandon(cmd: IntakeCommand, { phone_hash, email_hash }: DedupHashes, now: Date): Promise<void> {
    const owner = decisionId(cmd.partner_id, cmd.idempotency_key);
    const hashes = [`phone:${phone_hash}`, ...(email_hash ? [`email:${email_hash}`] : [])];
    const claimIds = ['g', `p:${cmd.partner_id}`].flatMap((scope) => hashes.map((h) => `${scope}:${h}`));
    const refId = leadRefId(cmd.partner_id, cmd.lead.external_id);
    const held = [
      ...(await this.d.claims.byIds(claimIds, now)).values(),
      ...(await this.d.refs.byIds([refId])).values(),
    ].filter((h) => h.owner === owner);
    if (held.length === 0 || (await this.d.leads.byIds(held.map((h) => h.lead_id))).size > 0) return;
    await this.d.claims.release(claimIds, owner, now);
    await this.d.refs.release([refId], owner);
  }
}

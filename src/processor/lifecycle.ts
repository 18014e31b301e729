import type { LeadDoc, StatusChange } from '../shared/mongo/documents';
import { isDuplicateKey } from '../shared/mongo/client';
import { clientIdForLead } from '../shared/ids';
import type { Runtime } from '../shared/runtime';
import type { AgentAction, Deposit } from '../shared/schemas';
import type { Statuses } from '../shared/status-catalog';
import type { EventRelay } from './event-relay';
import { agentMove, depositMove, type Move } from './transitions';

export type ApplyResult = { kind: 'applied' } | { kind: 'repeat' } | { kind: 'refused'; reason: string };

// Applies CRM messages to leads. Each message is decided and applied under the lead's lock, in one
// single-document update that also records the message id, so redelivery is harmless.
export class Lifecycle {
  constructor(private readonly rt: Runtime, private readonly statuses: Statuses, private readonly relay: EventRelay) {}

  async applyAgentAction(action: AgentAction): Promise<ApplyResult> {
    return this.apply(action.lead_id, `agent-action:${action.action_id}`, (lead) => agentMove(this.statuses, lead, action.status),
      action.note ?? `agent ${action.agent_id ?? 'unknown'}`, new Date(action.occurred_at));
  }

  async applyDeposit(deposit: Deposit): Promise<ApplyResult> {
    const op = `deposit:${deposit.deposit_id}`;
    const result = await this.apply(deposit.lead_id, op, (lead) => depositMove(this.statuses, lead, deposit.type),
      deposit.type, new Date(deposit.occurred_at), async (lead, move) => {
        if (move.createsClient) await this.createClient(lead, deposit);
      });
    if (result.kind !== 'refused') await this.recordDeposit(deposit);
    return result;
  }

  private async apply(
    leadId: string,
    op: string,
    decide: (lead: LeadDoc) => Move,
    why: string,
    at: Date,
    before?: (lead: LeadDoc, move: Extract<Move, { ok: true }>) => Promise<void>,
  ): Promise<ApplyResult> {
    const leads = this.rt.mongo.collections.leads;
    type Locked = Extract<ApplyResult, { kind: 'refused' }> | { kind: 'applied' | 'repeat'; lead: LeadDoc };
    const result = await this.rt.locks.withLock(`lead:${leadId}`, async (): Promise<Locked> => {
      const lead = await leads.findOne({ _id: leadId });
      if (!lead) return { kind: 'refused', reason: 'unknown_lead' };
      if (lead.applied_ops.includes(op)) return { kind: 'repeat', lead };
      const move = decide(lead);
      if (!move.ok) return { kind: 'refused', reason: move.reason };
      await before?.(lead, move);
      const change: StatusChange = { from: lead.status, to: move.to, at, why, source: op, event: move.event, is_depositor: move.isDepositor };
      const set: Partial<LeadDoc> = { status: move.to, is_depositor: move.isDepositor, updated_at: new Date() };
      if (move.createsClient) set.client_id = clientIdForLead(lead._id);
      const updated = await leads.findOneAndUpdate(
        { _id: lead._id, status: lead.status, applied_ops: { $ne: op } },
        { $set: set, $push: { history: change, applied_ops: op }, $inc: { pending_events: 1 } },
        { returnDocument: 'after' },
      );
      if (!updated) throw new Error(`lead ${leadId} changed under its lock while applying ${op}`);
      return { kind: 'applied', lead: updated };
    });
    if (result.kind === 'refused') return result;
    // Publish outside the lock (the relay takes it itself); a repeat finishes a publish an earlier
    // attempt may not have made.
    await this.relay.publish(result.lead);
    return { kind: result.kind };
  }

  // One client per lead: its id derives from the lead's, so a redelivered first deposit finds it.
  private async createClient(lead: LeadDoc, deposit: Deposit): Promise<void> {
    try {
      await this.rt.mongo.collections.clients.insertOne({
        _id: clientIdForLead(lead._id), lead_id: lead._id, partner_id: lead.partner_id, first_deposit_id: deposit.deposit_id, created_at: new Date(),
      });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  // Amounts and currencies stay here, in the deposits collection; no event or callback carries them.
  private async recordDeposit(deposit: Deposit): Promise<void> {
    const lead = await this.rt.mongo.collections.leads.findOne({ _id: deposit.lead_id }, { projection: { client_id: 1 } });
    try {
      await this.rt.mongo.collections.deposits.insertOne({
        _id: deposit.deposit_id, lead_id: deposit.lead_id, client_id: lead?.client_id ?? null, type: deposit.type,
        amount: deposit.amount, currency: deposit.currency, occurred_at: new Date(deposit.occurred_at), recorded_at: new Date(),
      });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
}

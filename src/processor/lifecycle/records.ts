import type { KafkaMessage } from 'kafkajs';
import type { Decoded } from '../../shared/kafka/batch-consumer';
import { testMark, type DepositDoc, type LeadDoc, type ParkedMessageDoc } from '../../shared/mongo/documents';
import type { AgentAction, Deposit, LeadCommand } from '../../shared/schemas';

// The CRM and command messages the lead's owner applies, as records: what a history entry, a parked
// message or a deposit keeps of them. Pure; decide.ts decides with them.
export type LifecycleMessage = AgentAction | Deposit | LeadCommand;

export function isErase(record: Decoded<LifecycleMessage>): boolean {
  return record.topic === 'leadCommands' && (record.value as LeadCommand).kind === 'erase';
}

const PARKED_ID = { agentActions: (v: AgentAction) => v.action_id, deposits: (v: Deposit) => v.deposit_id };

// Never the agent's note, neither parsed nor in the message's bytes: agents write names and numbers
// there. A parked agent action is dead-lettered from its parsed value (consumer.ts).
export function parkedDoc(
  record: Decoded<AgentAction | Deposit>,
  reason: string,
  partition: number,
  now: Date,
): ParkedMessageDoc {
  const topic = record.topic as ParkedMessageDoc['topic'];
  const action = topic === 'agentActions';
  const id = action ? PARKED_ID.agentActions(record.value as AgentAction) : PARKED_ID.deposits(record.value as Deposit);
  const { key, value, offset } = record.message;
  return {
    _id: `${topic}:${id}`,
    lead_id: record.value.lead_id,
    topic,
    value: action ? withoutNote(record.value as AgentAction) : record.value,
    reason,
    parked_at: now,
    source: {
      partition,
      offset,
      key: key ? key.toString('base64') : null,
      value: action ? '' : (value ?? Buffer.alloc(0)).toString('base64'),
    },
  };
}

export function withoutNote(action: AgentAction): AgentAction {
  const { note: _note, ...rest } = action;
  return rest;
}

// The parked message as the record it came in as (its original bytes, for a dead letter).
export function recordOf(parked: ParkedMessageDoc): Decoded<LifecycleMessage> {
  const { partition, key, value, offset } = parked.source;
  const message = {
    key: key === null ? null : Buffer.from(key, 'base64'),
    value: Buffer.from(value, 'base64'),
    offset,
  } as KafkaMessage;
  return { topic: parked.topic, partition, message, value: parked.value };
}

// Which message a history entry comes from, why, and when it happened.
export function describe(record: Decoded<LifecycleMessage>): { source: string; why: string; at: Date } {
  if (record.topic === 'agentActions') {
    const a = record.value as AgentAction;
    // Never the agent's note: agents write names and numbers there, and history outlives erasure.
    return {
      source: `agent-action:${a.action_id}`,
      why: `agent ${a.agent_id ?? 'unknown'}`,
      at: new Date(a.occurred_at),
    };
  }
  if (record.topic === 'deposits') {
    const d = record.value as Deposit;
    return { source: `deposit:${d.deposit_id}`, why: d.type, at: new Date(d.occurred_at) };
  }
  const c = record.value as LeadCommand;
  return { source: `distribution:${c.command_id}`, why: c.kind, at: new Date(c.issued_at) };
}

// When an agent action asks for the lead to be called back; null clears a callback scheduled before.
export function callbackAt(action: AgentAction): Date | null {
  return action.callback_at === undefined ? null : new Date(action.callback_at);
}

export function depositDoc(deposit: Deposit, lead: Pick<LeadDoc, 'client_id' | 'test'>, now: Date): DepositDoc {
  return {
    _id: deposit.deposit_id,
    lead_id: deposit.lead_id,
    client_id: lead.client_id,
    type: deposit.type,
    amount: deposit.amount,
    currency: deposit.currency,
    occurred_at: new Date(deposit.occurred_at),
    recorded_at: now,
    ...testMark(lead.test),
  };
}

import type { KafkaMessage } from 'kafkajs';
import type { Decoded } from '../../src/shared/kafka/batch-consumer';
import type { LeadDoc, StatusChange } from '../../src/shared/mongo/documents';
import type { AgentAction, Deposit, LeadCommand } from '../../src/shared/schemas';
import { DEFAULT_CATALOG, Statuses } from '../../src/shared/status-catalog';
import type { decideLead, DecideContext, Input } from '../../src/processor/lifecycle/decide';
import type { LifecycleMessage } from '../../src/processor/lifecycle/records';

// Inputs of the lifecycle's pure step: lead le-7 as read in, its CRM messages and lead commands on
// partition 3, and a context whose agent picks are recorded.
export const NOW = new Date('2026-11-24T12:00:00Z');
export const T0 = new Date('2026-11-24T09:00:00Z');
export const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000).toISOString();
export const PARK_MAX_MS = 3_600_000;

export function context(agents: string[] = []): DecideContext & { taken: (string | null | undefined)[] } {
  const taken: (string | null | undefined)[] = [];
  return {
    statuses: new Statuses(DEFAULT_CATALOG),
    parkMaxMs: PARK_MAX_MS,
    partition: 3,
    now: NOW,
    taken,
    takeAgent: (_lead, _now, except) => {
      taken.push(except);
      const id = agents.find((a) => a !== except);
      return id ? { _id: id } : null;
    },
  };
}

export const intake: StatusChange = {
  from: null,
  to: 'new',
  at: T0,
  why: 'accepted at intake',
  source: 'intake',
  event: 'lead.accepted',
  is_depositor: false,
};
export const assigned = (agent: string): StatusChange => ({
  from: 'new',
  to: 'assigned',
  at: T0,
  why: `assigned to ${agent}`,
  source: 'distribution',
  event: 'lead.status_changed',
  is_depositor: false,
  agent_id: agent,
});

export function lead(over: Partial<LeadDoc> = {}): LeadDoc {
  return {
    _id: 'le-7',
    seq: 7,
    partner_id: 'pa-1',
    external_id: 'x-7',
    idempotency_key: 'k-7',
    status: 'assigned',
    is_depositor: false,
    client_id: null,
    agent_id: 'ag-1',
    reason: null,
    history: [intake, assigned('ag-1')],
    phone_enc: 'p',
    phone_hash: 'h',
    personal_enc: 'e',
    created_at: T0,
    updated_at: T0,
    ...over,
  };
}

let offset = 0;
export const record = <T extends LifecycleMessage>(topic: Decoded<T>['topic'], value: T): Input => ({
  record: {
    topic,
    partition: 3,
    message: { offset: String(offset++), key: null, value: Buffer.from('bytes') } as KafkaMessage,
    value,
  },
});
export const action = (id: string, status: string, minutes = 1, extra: Partial<AgentAction> = {}) =>
  record<AgentAction>('agentActions', {
    action_id: id,
    lead_id: 'le-7',
    agent_id: 'ag-1',
    status,
    occurred_at: at(minutes),
    ...extra,
  });
export const deposit = (id: string, type: Deposit['type'] = 'deposit', minutes = 2) =>
  record<Deposit>('deposits', {
    deposit_id: id,
    lead_id: 'le-7',
    type,
    amount: '250.00',
    currency: 'EUR',
    occurred_at: at(minutes),
  });
export const command = (id: string, kind: LeadCommand['kind'], extra: Partial<LeadCommand> = {}) =>
  record<LeadCommand>('leadCommands', { command_id: id, lead_id: 'le-7', kind, issued_at: at(3), ...extra });

export const outcomes = (d: ReturnType<typeof decideLead>) => d.outcomes.map((o) => o.outcome);

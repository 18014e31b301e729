import type { StatusChange } from '../shared/mongo/documents';
import type { Statuses } from '../shared/status-catalog';

export type Move =
  | { ok: true; to: string; event: StatusChange['event']; isDepositor: boolean; createsClient: boolean }
  | { ok: false; reason: 'unknown_status' | 'terminal_status' | 'illegal_transition' | 'status_needs_deposit' }
  // Not yet: the message can apply once something else has happened (here: the first deposit).
  | { ok: false; reason: 'chargeback_before_deposit'; wait: true };

interface LeadState {
  status: string;
  is_depositor: boolean;
  client_id: string | null;
  history?: readonly Pick<StatusChange, 'to' | 'at' | 'source'>[];
}

const DEPOSIT_DRIVEN = new Set(['ftd', 'rtd', 'chargeback']);

function refuse(statuses: Statuses, from: string, to: string): Move | null {
  if (!statuses.has(to)) return { ok: false, reason: 'unknown_status' };
  if (statuses.isTerminal(from)) return { ok: false, reason: 'terminal_status' };
  if (!statuses.canMove(from, to)) return { ok: false, reason: 'illegal_transition' };
  return null;
}

// An agent's outcome (spec 3.2 agent-action rows). Deposit statuses come only from deposits.
export function agentMove(statuses: Statuses, lead: LeadState, target: string): Move {
  if (DEPOSIT_DRIVEN.has(target)) return { ok: false, reason: 'status_needs_deposit' };
  return (
    refuse(statuses, lead.status, target) ?? {
      ok: true,
      to: target,
      event: 'lead.status_changed',
      isDepositor: lead.is_depositor,
      createsClient: false,
    }
  );
}

// A deposit is a fact, not a request: the first one makes any lead that is not terminal a client
// (ftd), whatever pre-deposit status the CRM has reached (its "contacted" may still be on the way);
// every later one is an rtd. Agent actions and deposits come on two topics with no order between
// them, so they are ordered by when they happened (the CRM's occurred_at): a first deposit that
// happened before the agent action that made the lead terminal (no_answer, wrong_number, trash),
// logged or delivered after it, still makes the ftd. One that happened after it is refused
// (terminal_status). A chargeback reverses a deposit (terminal), so one that arrives before any
// deposit waits for it.
export function depositMove(
  statuses: Statuses,
  lead: LeadState,
  type: 'deposit' | 'chargeback',
  occurredAt?: Date,
): Move {
  const earlier =
    type === 'deposit' &&
    lead.client_id === null &&
    occurredAt !== undefined &&
    happenedBeforeAgentEnded(lead, occurredAt);
  if (statuses.isTerminal(lead.status) && !earlier) return { ok: false, reason: 'terminal_status' };
  if (type === 'chargeback') {
    return lead.client_id === null
      ? { ok: false, reason: 'chargeback_before_deposit', wait: true }
      : { ok: true, to: 'chargeback', event: 'lead.status_changed', isDepositor: true, createsClient: false };
  }
  if (lead.client_id === null)
    return { ok: true, to: 'ftd', event: 'lead.ftd', isDepositor: true, createsClient: true };
  return { ok: true, to: 'rtd', event: 'lead.rtd', isDepositor: true, createsClient: false };
}

// The lead's terminal status came from an agent action that happened after `at`.
function happenedBeforeAgentEnded(lead: LeadState, at: Date): boolean {
  const ending = lead.history?.[lead.history.length - 1];
  return (
    ending !== undefined &&
    ending.to === lead.status &&
    ending.source.startsWith('agent-action:') &&
    at.getTime() < ending.at.getTime()
  );
}

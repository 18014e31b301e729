import { randomUUID } from 'node:crypto';
import type { AgentAction } from '../../shared/schemas';
import type { Statuses } from '../../shared/status-catalog';

// The workspace's one-click outcomes and the status code of the catalogue each publishes. They are the
// default catalogue's agent statuses; an installation's catalogue without one refuses it (409).
export const OUTCOME_STATUS = {
  contacted: 'contacted',
  callback: 'callback',
  interested: 'interested',
  no_answer: 'no_answer',
  wrong_number: 'wrong_number',
  trash: 'trash',
} as const;
export type Outcome = keyof typeof OUTCOME_STATUS;
export const OUTCOMES = Object.keys(OUTCOME_STATUS) as Outcome[];

// How far back a callback time may lie (a browser's clock a little behind ours), and how far ahead.
const CALLBACK_PAST_SLACK_MS = 5 * 60_000;
const CALLBACK_MAX_AHEAD_MS = 366 * 86_400_000;

// Why an outcome cannot be recorded on a lead in `status`, or null when the catalogue allows it:
// checked before it is published, so the agent hears at once rather than through a dead letter.
export function outcomeRefusal(statuses: Statuses, status: string, outcome: Outcome): string | null {
  const to = OUTCOME_STATUS[outcome];
  if (!statuses.has(to)) return `the status catalogue has no ${to}`;
  if (statuses.isTerminal(status)) return `the lead is ${status}: it has ended`;
  return statuses.canMove(status, to) ? null : `a lead that is ${status} cannot become ${to}`;
}

// The outcomes the catalogue allows from a lead's status (the buttons a lead card offers).
export function allowedOutcomes(statuses: Statuses, status: string): Outcome[] {
  return OUTCOMES.filter((o) => outcomeRefusal(statuses, status, o) === null);
}

// A callback needs a time, and only a callback takes one: a problem to answer with 422, or null.
export function callbackProblem(outcome: Outcome, callbackAt: string | undefined, now: Date): string | null {
  if (outcome !== 'callback') return callbackAt === undefined ? null : '/callback_at: only a callback takes a time';
  if (callbackAt === undefined) return '/callback_at: a callback needs a date and time';
  const at = new Date(callbackAt).getTime();
  if (at < now.getTime() - CALLBACK_PAST_SLACK_MS) return '/callback_at: the time has passed';
  return at > now.getTime() + CALLBACK_MAX_AHEAD_MS ? '/callback_at: more than a year ahead' : null;
}

// The agent action the outcome is, exactly as a CRM would publish it on crm.agent-actions.
export function outcomeAction(
  leadId: string,
  agentId: string,
  outcome: Outcome,
  callbackAt: string | undefined,
  now: Date,
): AgentAction {
  return {
    action_id: `ws-${randomUUID()}`,
    lead_id: leadId,
    agent_id: agentId,
    status: OUTCOME_STATUS[outcome],
    occurred_at: now.toISOString(),
    ...(callbackAt === undefined ? {} : { callback_at: new Date(callbackAt).toISOString() }),
  };
}

import type { LeadDoc } from '../shared/mongo/documents';
import type { LeadCommand } from '../shared/schemas';
import type { IsTerminal } from './assignment-feed';
import type { Move } from './transitions';

type ReassignedLead = Pick<LeadDoc, 'status' | 'is_depositor' | 'agent_id' | 'personal_erased_at'>;

// A supervisor's `reassign` command: the lead goes to the named agent if it is still with an agent,
// not terminal and not erased (it may have moved meanwhile; then it is only given to the new agent
// from where it is now). Its status stays and the partner hears nothing (no event, as an idle
// reassignment); the history entry hands it over, so the assignment feed says `reassigned`.
// Null: nothing to do (ended, erased, or already with that agent). Pure.
export function supervisorReassign(
  lead: ReassignedLead,
  cmd: Pick<LeadCommand, 'to_agent_id' | 'requested_by'>,
  isTerminal: IsTerminal,
): (Move & { agentId: string; why: string }) | null {
  const to = cmd.to_agent_id;
  if (
    to === undefined ||
    lead.agent_id === null ||
    lead.agent_id === to ||
    lead.personal_erased_at ||
    isTerminal(lead.status)
  )
    return null;
  return {
    ok: true,
    to: lead.status,
    event: null,
    isDepositor: lead.is_depositor,
    createsClient: false,
    agentId: to,
    why: `reassigned from ${lead.agent_id} to ${to} by ${cmd.requested_by ?? 'a supervisor'}`,
  };
}

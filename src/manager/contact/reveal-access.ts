import type { Principal } from '../../identity/principal';

// Who asks for a contact, and the agent named in the request (?agent_id=), if any.
export type RevealCaller = Pick<Principal, 'kind' | 'id' | 'role' | 'agentId'> & { requestedAgentId: string | null };

// What the decision reads of the lead: its current (or, once terminal or erased, last) agent.
export interface RevealLead {
  agentId: string | null;
  terminal: boolean;
  erased: boolean;
}

// The outcome is also the metric's label and the audit entry's.
export type RevealVerdict =
  | { outcome: 'revealed'; agentId: string }
  | { outcome: 'no_agent' } // the caller acts for no agent: an agent's account linked to none (403), a service account naming none (422)
  | { outcome: 'not_found'; agentId: string | null } // 404: not theirs to know of
  | { outcome: 'erased'; agentId: string }; // 410: their lead, its personal data gone

// The agent a reveal is for: a service account names it; an agent's account works as its own; a
// supervisor's is the lead's agent (checked against the team below). null: the caller acts for none.
export function revealAgent(caller: RevealCaller, leadAgentId: string | null): string | null {
  if (caller.kind === 'service_account') return caller.requestedAgentId;
  if (caller.role === 'agent') return caller.agentId;
  return caller.requestedAgentId ?? leadAgentId;
}

// Pure: whether the caller may have the lead's contact. `supervisorId` is the supervisor of the agent
// the reveal is for (null: none, or not looked up). Everyone not on the lead's agent's side gets
// not_found, never a hint that the lead exists; the agent's side learns that it is erased.
export function decideReveal(caller: RevealCaller, lead: RevealLead, supervisorId: string | null): RevealVerdict {
  const agentId = revealAgent(caller, lead.agentId);
  if (agentId === null) return { outcome: 'no_agent' };
  const onSide =
    caller.kind === 'service_account' ||
    agentId === caller.agentId ||
    (supervisorId !== null && supervisorId === caller.id);
  if (!onSide || lead.agentId !== agentId) return { outcome: 'not_found', agentId };
  if (lead.erased) return { outcome: 'erased', agentId };
  // A lead in a terminal status has left its agent (agent_id still names the last one).
  if (lead.terminal) return { outcome: 'not_found', agentId };
  return { outcome: 'revealed', agentId };
}

// Whose supervisor the decision needs: only a person's account asking for an agent it is not.
export function supervisorToCheck(caller: RevealCaller, leadAgentId: string | null): string | null {
  const agentId = revealAgent(caller, leadAgentId);
  return caller.kind === 'account' && agentId !== null && agentId !== caller.agentId ? agentId : null;
}

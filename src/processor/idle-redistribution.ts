import type { LeadDoc } from '../shared/mongo/documents';
import type { LeadCommand } from '../shared/schemas';

// A lead handed to an agent and not worked since: its status is still `assigned` and its last
// history entry is the one that assigned it to that agent (any agent action, deposit, reassignment
// or erasure adds one).
export interface Assignment {
  lead_id: string;
  agent_id: string;
  seq: number; // index of the assigning history entry
}

type AssignedLead = Pick<LeadDoc, '_id' | 'status' | 'agent_id' | 'history'>;

// The assignment a lead is waiting on its agent for, or null when it is not waiting (not assigned,
// or worked since).
export function pendingAssignment(lead: AssignedLead): Assignment | null {
  const seq = lead.history.length - 1;
  const last = lead.history[seq];
  if (
    lead.status !== 'assigned' ||
    lead.agent_id === null ||
    last?.to !== 'assigned' ||
    last.agent_id !== lead.agent_id
  )
    return null;
  return { lead_id: lead._id, agent_id: lead.agent_id, seq };
}

// Idle checks' command ids start so: the history entry a check makes names its command.
export const IDLE_CHECK_PREFIX = 'idle:';

// The command that asks, once the idle time is up, whether the assignment is still unworked. Its id
// is fixed per assignment, so a check published twice (a replayed chunk) makes one change.
export function idleCheck(a: Assignment, now: Date): LeadCommand {
  return {
    command_id: `${IDLE_CHECK_PREFIX}${a.lead_id}:${a.seq}`,
    lead_id: a.lead_id,
    kind: 'reassign_idle',
    agent_id: a.agent_id,
    assigned_seq: a.seq,
    issued_at: now.toISOString(),
  };
}

// Whether the lead is still exactly as the checked assignment left it: then it goes to another agent.
export function stillIdle(lead: AssignedLead, check: Pick<LeadCommand, 'agent_id' | 'assigned_seq'>): boolean {
  const pending = pendingAssignment(lead);
  return pending !== null && pending.agent_id === check.agent_id && pending.seq === check.assigned_seq;
}

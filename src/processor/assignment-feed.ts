import type { LeadDoc, StatusChange } from '../shared/mongo/documents';
import type { LeadAssignment } from '../shared/schemas';
import { IDLE_CHECK_PREFIX } from './idle-redistribution';

// The assignment feed (crm.lead-assignments) is a projection of the lead's history, nothing more:
// an entry that hands the lead to an agent gives it, a terminal status or an erasure takes it from
// its agent. So a change announced again (a redelivered chunk) is the same message under the same
// event_id, and the store's history is the feed's record.
export type FeedLead = Pick<
  LeadDoc,
  '_id' | 'partner_id' | 'external_id' | 'history' | 'created_at' | 'country_code' | 'language' | 'source' | 'funnel'
>;
export type IsTerminal = (status: string) => boolean;
export type AssignmentReason = LeadAssignment['reason'];

type Entry = Pick<StatusChange, 'to' | 'source' | 'agent_id' | 'erased'>;

// Entries of an idle check (lifecycle/decide.ts names an entry after its command: distribution:<command id>).
const IDLE_SOURCE = `distribution:${IDLE_CHECK_PREFIX}`;
const INTAKE_SOURCE = 'distribution'; // the assignment newLeadDoc makes in the intake's own write

// Why an entry changes who has the lead (`holder` before it), or null when it does not. A terminal
// status reached by a lead without an agent, or an erasure of one, changes nothing: no agent had it.
export function changeReason(entry: Entry, holder: string | null, isTerminal: IsTerminal): AssignmentReason | null {
  if (entry.agent_id !== undefined) {
    if (entry.source === INTAKE_SOURCE) return 'intake';
    if (holder === null) return 'waiting_assigned';
    return entry.source.startsWith(IDLE_SOURCE) ? 'idle_redistributed' : 'reassigned';
  }
  if (holder === null) return null;
  if (entry.erased) return 'erased';
  return isTerminal(entry.to) ? 'terminal' : null;
}

interface Change {
  seq: number;
  agent: string | null;
  previous: string | null;
  reason: AssignmentReason;
}

// Every change of agent in the history, in order: the history is walked from its start, since who
// had the lead before an entry decides what the entry means.
function changesOf(history: readonly Entry[], isTerminal: IsTerminal): Change[] {
  const changes: Change[] = [];
  let holder: string | null = null;
  history.forEach((entry, seq) => {
    const reason = changeReason(entry, holder, isTerminal);
    if (reason === null) return;
    const agent = entry.agent_id ?? null;
    changes.push({ seq, agent, previous: holder, reason });
    holder = agent;
  });
  return changes;
}

// The agent the lead is with now, by the feed: null once it left (terminal, erased) or never had one.
export function holderOf(lead: Pick<FeedLead, 'history'>, isTerminal: IsTerminal): string | null {
  return changesOf(lead.history, isTerminal).at(-1)?.agent ?? null;
}

// The feed messages of the history entries in `seqs` (those that change the lead's agent).
export function assignmentsAt(lead: FeedLead, seqs: Iterable<number>, isTerminal: IsTerminal): LeadAssignment[] {
  const wanted = new Set(seqs);
  return changesOf(lead.history, isTerminal)
    .filter((c) => wanted.has(c.seq))
    .map((c) => messageOf(lead, c));
}

function messageOf(lead: FeedLead, c: Change): LeadAssignment {
  const entry = lead.history[c.seq] as StatusChange;
  return {
    event_id: `${lead._id}:${c.seq}`,
    lead_id: lead._id,
    agent_id: c.agent,
    previous_agent_id: c.previous,
    partner_id: lead.partner_id,
    external_lead_id: lead.external_id,
    status: entry.to,
    country_code: lead.country_code ?? null,
    language: lead.language ?? null,
    source: lead.source ?? null,
    funnel: lead.funnel ?? null,
    reason: c.reason,
    created_at: lead.created_at.toISOString(),
    at: entry.at.toISOString(),
  };
}

// The entry an erasure appends when it takes the lead from its agent (null: no agent has it). Its
// status stays; the partner hears nothing (no event); the feed says the lead left.
export function erasureEntry(
  lead: Pick<LeadDoc, 'history' | 'status' | 'is_depositor'>,
  isTerminal: IsTerminal,
  made: { source: string; at: Date },
): StatusChange | null {
  const holder = holderOf(lead, isTerminal);
  if (holder === null) return null;
  return {
    from: lead.status,
    to: lead.status,
    at: made.at,
    why: `personal data erased: taken from ${holder}`,
    source: made.source,
    event: null,
    is_depositor: lead.is_depositor,
    erased: true,
  };
}

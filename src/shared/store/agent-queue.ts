import type { LeadDoc } from '../mongo/documents';
import { entryId, listPrefix, type ListEntry } from './list-index';

// An agent's work queue: views of the lead list's read model (lead_list), written with the lead by
// its one writer (LeadStore), so the workspace reads an agent's queue as a few _id range reads:
//   qc|<agent>|<callback_at>|<lead>   open leads with a callback scheduled, by its time
//   qn|<agent>|<created_at>|<lead>    open leads never worked (status `assigned`), oldest first
//   qw|<agent>|<created_at>|<lead>    the agent's other open leads, oldest first
// A lead is in one of them at most: none once terminal or erased (nobody can call it any more).
export type QueueGroup = 'callback' | 'new' | 'worked';
export type IsTerminal = (status: string) => boolean;

export type Queued = Pick<LeadDoc, '_id' | 'status' | 'agent_id' | 'created_at' | 'callback_at' | 'personal_erased_at'>;

const VIEWS: Record<QueueGroup, string> = { callback: 'qc', new: 'qn', worked: 'qw' };

// Which part of its agent's queue a lead is in, or null when it is in none.
export function queueGroup(lead: Queued, isTerminal: IsTerminal): QueueGroup | null {
  if (lead.agent_id === null || lead.personal_erased_at || isTerminal(lead.status)) return null;
  if (lead.callback_at) return 'callback';
  return lead.status === 'assigned' ? 'new' : 'worked';
}

export function queuePrefix(group: QueueGroup, agentId: string): string {
  return listPrefix(VIEWS[group], agentId);
}

export function queueEntries(lead: Queued, isTerminal: IsTerminal): ListEntry[] {
  const group = queueGroup(lead, isTerminal);
  if (group === null) return [];
  return [
    {
      prefix: queuePrefix(group, lead.agent_id as string),
      at: group === 'callback' ? (lead.callback_at as Date) : lead.created_at,
      ref: lead._id,
    },
  ];
}

// The queue entry a change of the lead adds and the one it takes away (none when it stays put).
export function queueMoves(
  before: Queued,
  after: Queued,
  isTerminal: IsTerminal,
): { put: ListEntry[]; remove: ListEntry[] } {
  const was = queueEntries(before, isTerminal);
  const is = queueEntries(after, isTerminal);
  const ids = (entries: ListEntry[]) => new Set(entries.map(entryId));
  const wasIds = ids(was);
  const isIds = ids(is);
  return { put: is.filter((e) => !wasIds.has(entryId(e))), remove: was.filter((e) => !isIds.has(entryId(e))) };
}

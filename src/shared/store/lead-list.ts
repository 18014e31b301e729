import type { LeadDoc } from '../mongo/documents';
import { listPrefix, type ListEntry } from './list-index';

// The lead list's read model (collection lead_list), written by the lead's one writer (LeadStore)
// with the lead. Entries are ordered by the lead's created_at and carry the lead's immutable
// routing fields (country_code, source, sub_id, click_id), so a filter on them is checked on the entry:
//   l|...  lp|<partner>|...                    every lead; never move
//   ls|<status>|...  lps|<partner>|<status>|... by status; move with it
//   ld|...  lpd|<partner>|...                  depositors; added at the first deposit (for good)
//   la|<agent>|...                             an agent's leads; move with the lead's agent
export interface LeadListFilter {
  partnerId?: string;
  status?: string;
  isDepositor?: boolean;
  agentId?: string;
}

type Listed = Pick<
  LeadDoc,
  '_id' | 'partner_id' | 'status' | 'is_depositor' | 'agent_id' | 'created_at' | (typeof ENTRY_FIELDS)[number]
>;

// The routing fields an entry carries, checked on the entry before its lead is read.
export const ENTRY_FIELDS = ['country_code', 'source', 'sub_id', 'click_id'] as const;

// Which entries to read for a filter; what they do not cover is checked on each row.
export function leadListPrefix(f: LeadListFilter): string {
  if (f.agentId !== undefined) return listPrefix('la', f.agentId);
  if (f.status !== undefined)
    return f.partnerId ? listPrefix('lps', f.partnerId, f.status) : listPrefix('ls', f.status);
  if (f.isDepositor === true) return f.partnerId ? listPrefix('lpd', f.partnerId) : listPrefix('ld');
  return f.partnerId ? listPrefix('lp', f.partnerId) : listPrefix('l');
}

function entry(lead: Listed, prefix: string): ListEntry {
  return {
    prefix,
    at: lead.created_at,
    ref: lead._id,
    fields: Object.fromEntries(ENTRY_FIELDS.map((f) => [f, lead[f] ?? null])),
  };
}

const statusEntries = (lead: Listed): ListEntry[] => [
  entry(lead, listPrefix('ls', lead.status)),
  entry(lead, listPrefix('lps', lead.partner_id, lead.status)),
];
const depositorEntries = (lead: Listed): ListEntry[] =>
  lead.is_depositor ? [entry(lead, listPrefix('ld')), entry(lead, listPrefix('lpd', lead.partner_id))] : [];
const agentEntries = (lead: Listed): ListEntry[] =>
  lead.agent_id ? [entry(lead, listPrefix('la', lead.agent_id))] : [];

export function leadListEntries(lead: Listed): ListEntry[] {
  return [
    entry(lead, listPrefix('l')),
    entry(lead, listPrefix('lp', lead.partner_id)),
    ...statusEntries(lead),
    ...depositorEntries(lead),
    ...agentEntries(lead),
  ];
}

export interface ListMoves {
  put: ListEntry[];
  remove: ListEntry[];
}

// The entries a change of the lead adds and the ones it takes away.
export function leadListMoves(before: Listed, after: Listed): ListMoves {
  const moves: ListMoves = { put: [], remove: [] };
  if (before.status !== after.status) {
    moves.put.push(...statusEntries(after));
    moves.remove.push(...statusEntries(before));
  }
  if (after.is_depositor && !before.is_depositor) moves.put.push(...depositorEntries(after));
  if (before.agent_id !== after.agent_id) {
    moves.put.push(...agentEntries(after));
    moves.remove.push(...agentEntries(before));
  }
  return moves;
}

import type { AgentDoc } from '../shared/mongo/documents';
import { onShift } from './agent-shifts';

// Round robin among active agents on shift that take the lead's country and language (an empty
// list takes any): the eligible agent assigned longest ago (never assigned first) gets the lead.
// `except` leaves out the agent a lead is taken from.
export type RankedAgent = AgentDoc & { last_assigned_at: Date | null };

export function chooseAgent(
  agents: readonly RankedAgent[],
  lead: { country_code?: string; language?: string },
  now: Date,
  except: string | null = null,
): RankedAgent | null {
  const language = lead.language?.slice(0, 2).toLowerCase();
  const eligible = agents.filter(
    (a) =>
      a.active &&
      a._id !== except &&
      (a.countries.length === 0 || (lead.country_code !== undefined && a.countries.includes(lead.country_code))) &&
      (a.languages.length === 0 || (language !== undefined && a.languages.includes(language))) &&
      onShift(a, now),
  );
  eligible.sort(
    (a, b) => (a.last_assigned_at?.getTime() ?? 0) - (b.last_assigned_at?.getTime() ?? 0) || a._id.localeCompare(b._id),
  );
  return eligible[0] ?? null;
}

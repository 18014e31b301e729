import type { AgentDoc } from '../shared/mongo/documents';

// Round robin among active agents that take the lead's country and language (an empty list takes
// any): the eligible agent assigned longest ago (never assigned first) gets the lead.
export type RankedAgent = AgentDoc & { last_assigned_at: Date | null };

export function chooseAgent(agents: readonly RankedAgent[], lead: { country_code?: string; language?: string }): RankedAgent | null {
  const language = lead.language?.slice(0, 2).toLowerCase();
  const eligible = agents.filter((a) =>
    a.active
    && (a.countries.length === 0 || (lead.country_code !== undefined && a.countries.includes(lead.country_code)))
    && (a.languages.length === 0 || (language !== undefined && a.languages.includes(language))));
  eligible.sort((a, b) => (a.last_assigned_at?.getTime() ?? 0) - (b.last_assigned_at?.getTime() ?? 0) || a._id.localeCompare(b._id));
  return eligible[0] ?? null;
}

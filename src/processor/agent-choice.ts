import type { AgentActivityDoc, AgentDoc } from '../shared/mongo/documents';
import { onShift } from './agent-shifts';

type LeadTraits = { country_code?: string; language?: string };

// Round robin among active agents on shift that take the lead's country and language (an empty
// list takes any): the eligible agent whose last lead came earliest (never assigned first) gets the
// lead. `turn` is where an agent's last lead stands in the order of assignments (0: none yet), not
// a clock reading: the picks of one batch share a clock reading, and must rotate all the same.
// `except` leaves out the agent a lead is taken from.
export type RankedAgent = AgentDoc & { turn: number };

export function chooseAgent(
  agents: readonly RankedAgent[],
  lead: LeadTraits,
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
  eligible.sort((a, b) => a.turn - b.turn || a._id.localeCompare(b._id));
  return eligible[0] ?? null;
}

// The round robin's state in memory: the agents, each one's turn, and when each last got a lead
// (what the store keeps, and what orders the turns when a process starts).
export class Rotation {
  private agents: readonly AgentDoc[] = [];
  private readonly turns = new Map<string, number>();
  private readonly assignedAt = new Map<string, Date>();
  private lastTurn = 0;

  // When agents last got a lead, as stored: the turns follow that order (ties by id).
  remember(history: readonly AgentActivityDoc[]): void {
    const oldestFirst = [...history].sort(
      (a, b) => a.last_assigned_at.getTime() - b.last_assigned_at.getTime() || a._id.localeCompare(b._id),
    );
    for (const a of oldestFirst) {
      this.turns.set(a._id, ++this.lastTurn);
      this.assignedAt.set(a._id, a.last_assigned_at);
    }
  }

  setAgents(agents: readonly AgentDoc[]): void {
    this.agents = agents;
  }

  take(lead: LeadTraits, now: Date, except: string | null = null): AgentDoc | null {
    const agent = this.choose(lead, now, except);
    if (!agent) return null;
    this.turns.set(agent._id, ++this.lastTurn);
    this.assignedAt.set(agent._id, now);
    return agent;
  }

  fits(lead: LeadTraits, now: Date): boolean {
    return this.choose(lead, now, null) !== null;
  }

  lastAssignedAt(id: string): Date | null {
    return this.assignedAt.get(id) ?? null;
  }

  private choose(lead: LeadTraits, now: Date, except: string | null): AgentDoc | null {
    const ranked = this.agents.map((a) => ({ ...a, turn: this.turns.get(a._id) ?? 0 }));
    return chooseAgent(ranked, lead, now, except);
  }
}

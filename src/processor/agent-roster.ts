import type { Collection } from 'mongodb';
import type { AgentActivityDoc, AgentDoc } from '../shared/mongo/documents';
import { Rotation } from './agent-choice';

type LeadTraits = { country_code?: string; language?: string };

// The agents a processor hands leads to, kept in memory: the agents collection is small and read
// whole every refresh, and again before the next choice once a manager's change is announced
// (evict); the round robin runs in memory, and when each agent last got a lead is written to
// agent_activity once a refresh (one small write per agent that got leads).
export class AgentRoster {
  private readonly rotation = new Rotation();
  private loaded = false;
  private readonly dirty = new Set<string>();
  // Bumped by every announced change; the agents in memory are current when read at the latest.
  private generation = 0;
  private readAt = 0;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly agentDocs: Collection<AgentDoc>,
    private readonly activity: Collection<AgentActivityDoc>,
    private readonly handedOut: () => void = () => undefined, // an agent got a lead: saved at the next refresh
  ) {}

  // Reads the agents (and, the first time, when each last got a lead), then saves this process's
  // assignments since the last refresh; how many agents' were saved.
  async refresh(): Promise<number> {
    await this.readAgents();
    if (!this.loaded) this.rotation.remember(await this.activity.find({}).toArray());
    this.loaded = true;
    const saving = [...this.dirty];
    this.dirty.clear();
    await Promise.all(
      saving.map((id) =>
        this.activity.updateOne(
          { _id: id },
          { $set: { last_assigned_at: this.rotation.lastAssignedAt(id) as Date } },
          { upsert: true },
        ),
      ),
    );
    return saving.length;
  }

  // A manager changed an agent: the next choice waits for the agents to be read again.
  evict(): void {
    this.generation++;
  }

  // Resolves once the agents in memory are at least as new as the last announced change.
  current(): Promise<void> {
    return this.readAt === this.generation ? Promise.resolve() : this.readAgents();
  }

  // One read at a time, shared; a change announced while it reads is read again (the change is
  // stored before it is announced, so the read after the announcement sees it).
  private readAgents(): Promise<void> {
    this.reading ??= (async () => {
      do {
        const generation = this.generation;
        this.rotation.setAgents(await this.agentDocs.find({}).toArray());
        this.readAt = generation;
      } while (this.readAt !== this.generation);
    })().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }

  // The agent for this lead (round robin among eligible active agents on shift), or null when none
  // fits; `except` is left out (the agent an idle lead is taken from).
  take(lead: LeadTraits, now: Date, except: string | null = null): AgentDoc | null {
    const agent = this.rotation.take(lead, now, except);
    if (agent) {
      this.dirty.add(agent._id);
      this.handedOut();
    }
    return agent;
  }

  fits(lead: LeadTraits, now: Date): boolean {
    return this.rotation.fits(lead, now);
  }
}

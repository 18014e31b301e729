import type { Collection } from 'mongodb';
import { randomId } from '../shared/ids';
import { findByIds } from '../shared/mongo/bulk';
import type { AgentActivityDoc, AgentDoc } from '../shared/mongo/documents';
import type { AgentSettings } from '../shared/schemas';
import { findPage, type Page, type PageRequest } from './pagination';
import { systemClock, type Clock } from '../shared/clock';

const MAX_TEAM = 500;

export type AgentView = Omit<AgentDoc, '_id'> & { id: string; last_assigned_at: Date | null };

// An agent as managers see it, with when it last got a lead (kept apart by the processors).
export function agentView(doc: AgentDoc, lastAssignedAt: Date | null): AgentView {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest, last_assigned_at: lastAssignedAt };
}

// Announces a stored change to an agent to every processor (AgentChanges over Redis).
export type AnnounceAgentChange = (agentId: string) => Promise<void>;

// Agents as managers change them (the processors only read them; when each last got a lead is
// kept apart, in agent_activity). Every change is announced once stored, before it is answered.
export class AgentService {
  constructor(
    private readonly agents: Collection<AgentDoc>,
    private readonly activity: Collection<AgentActivityDoc>,
    private readonly announce: AnnounceAgentChange,
    private readonly clock: Clock = systemClock,
  ) {}

  // A new agent takes leads at once: the processors re-read the agents before their next choice and
  // ask for waiting leads whose countries and languages fit (an empty list accepts any) to be assigned.
  async create(settings: AgentSettings & { name: string }): Promise<AgentView> {
    const now = this.clock.now();
    const doc: AgentDoc = {
      active: true,
      countries: [],
      languages: [],
      ...settings,
      _id: randomId('ag'),
      created_at: now,
      updated_at: now,
    };
    await this.agents.insertOne(doc);
    await this.announce(doc._id);
    return agentView(doc, null);
  }

  async update(id: string, patch: AgentSettings): Promise<AgentView | null> {
    const updated = await this.agents.findOneAndUpdate(
      { _id: id },
      { $set: { ...patch, updated_at: this.clock.now() } },
      { returnDocument: 'after' },
    );
    if (updated) await this.announce(id);
    return updated && (await this.withActivity([updated]))[0]!;
  }

  async find(id: string): Promise<AgentView | null> {
    const doc = await this.agents.findOne({ _id: id });
    return doc && (await this.withActivity([doc]))[0]!;
  }

  // A supervisor's team: the agents that name their account (by the supervisor_id index; a team is tens).
  team(supervisorId: string): Promise<AgentDoc[]> {
    return this.agents.find({ supervisor_id: supervisorId }).sort({ name: 1, _id: 1 }).limit(MAX_TEAM).toArray();
  }

  async list(filter: { active?: boolean }, page: PageRequest): Promise<Page<AgentView>> {
    const docs = await findPage(
      this.agents,
      filter.active === undefined ? {} : { active: filter.active },
      page,
      (d) => d,
    );
    return { items: await this.withActivity(docs.items), next_offset: docs.next_offset };
  }

  private async withActivity(docs: readonly AgentDoc[]): Promise<AgentView[]> {
    const activity = await findByIds(
      this.activity,
      docs.map((d) => d._id),
    );
    return docs.map((d) => agentView(d, activity.get(d._id)?.last_assigned_at ?? null));
  }
}

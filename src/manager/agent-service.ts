import { randomId } from '../shared/ids';
import { findByIds } from '../shared/mongo/bulk';
import type { AgentDoc } from '../shared/mongo/documents';
import type { Runtime } from '../shared/runtime';
import type { AgentSettings } from '../shared/schemas';
import { findPage, type Page, type PageRequest } from './pagination';

export type AgentView = Omit<AgentDoc, '_id'> & { id: string; last_assigned_at: Date | null };

// An agent as managers see it, with when it last got a lead (kept apart by the processors).
export function agentView(doc: AgentDoc, lastAssignedAt: Date | null): AgentView {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest, last_assigned_at: lastAssignedAt };
}

async function withActivity(rt: Runtime, docs: readonly AgentDoc[]): Promise<AgentView[]> {
  const activity = await findByIds(rt.mongo.collections.agentActivity, docs.map((d) => d._id));
  return docs.map((d) => agentView(d, activity.get(d._id)?.last_assigned_at ?? null));
}

// A new agent takes leads at once: the processors re-read the agents and ask for waiting leads
// whose countries and languages fit (an empty list accepts any) to be assigned.
export async function createAgent(rt: Runtime, settings: AgentSettings & { name: string }): Promise<AgentView> {
  const now = new Date();
  const doc: AgentDoc = {
    active: true,
    countries: [],
    languages: [],
    ...settings,
    _id: randomId('ag'),
    created_at: now,
    updated_at: now,
  };
  await rt.mongo.collections.agents.insertOne(doc);
  return agentView(doc, null);
}

export async function updateAgent(rt: Runtime, id: string, patch: AgentSettings): Promise<AgentView | null> {
  const updated = await rt.mongo.collections.agents.findOneAndUpdate(
    { _id: id },
    { $set: { ...patch, updated_at: new Date() } },
    { returnDocument: 'after' },
  );
  return updated && (await withActivity(rt, [updated]))[0]!;
}

export async function findAgent(rt: Runtime, id: string): Promise<AgentView | null> {
  const doc = await rt.mongo.collections.agents.findOne({ _id: id });
  return doc && (await withActivity(rt, [doc]))[0]!;
}

export async function listAgents(rt: Runtime, filter: { active?: boolean }, page: PageRequest): Promise<Page<AgentView>> {
  const docs = await findPage(rt.mongo.collections.agents, filter.active === undefined ? {} : { active: filter.active }, page, (d) => d);
  return { items: await withActivity(rt, docs.items), next_offset: docs.next_offset };
}

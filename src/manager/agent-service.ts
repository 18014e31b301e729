import { randomId } from '../shared/ids';
import type { AgentDoc } from '../shared/mongo/documents';
import type { Runtime } from '../shared/runtime';
import type { AgentSettings } from '../shared/schemas';
import { findPage, type Page, type PageRequest } from './pagination';

export type AgentView = Omit<AgentDoc, '_id'> & { id: string };

export function agentView(doc: AgentDoc): AgentView {
  const { _id, ...rest } = doc;
  return { id: _id, ...rest };
}

// A new agent takes leads at once: the processor re-scans waiting leads and hands them to active
// agents whose countries and languages fit (an empty list accepts any).
export async function createAgent(rt: Runtime, settings: AgentSettings & { name: string }): Promise<AgentView> {
  const now = new Date();
  const doc: AgentDoc = {
    active: true,
    countries: [],
    languages: [],
    ...settings,
    _id: randomId('ag'),
    last_assigned_at: null,
    created_at: now,
    updated_at: now,
  };
  await rt.mongo.collections.agents.insertOne(doc);
  return agentView(doc);
}

export async function updateAgent(rt: Runtime, id: string, patch: AgentSettings): Promise<AgentView | null> {
  const updated = await rt.mongo.collections.agents.findOneAndUpdate(
    { _id: id },
    { $set: { ...patch, updated_at: new Date() } },
    { returnDocument: 'after' },
  );
  return updated && agentView(updated);
}

export async function findAgent(rt: Runtime, id: string): Promise<AgentView | null> {
  const doc = await rt.mongo.collections.agents.findOne({ _id: id });
  return doc && agentView(doc);
}

export async function listAgents(rt: Runtime, filter: { active?: boolean }, page: PageRequest): Promise<Page<AgentView>> {
  return findPage(rt.mongo.collections.agents, filter.active === undefined ? {} : { active: filter.active }, page, agentView);
}

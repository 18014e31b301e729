import type { ManagerClient } from '../support/manager-client';
import type { PartnerClient } from '../support/partner-client';
import { nextShift, startAgentDesk, type MovableClock } from '../support/agent-desk';
import type { TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// Round robin on the real servers: a burst of leads decided in one batch, and the leads that waited
// for a shift to start, are shared among the eligible agents as evenly as leads one by one.
let app: TestApp;
let manager: ManagerClient;
let partner: PartnerClient;
let clock: MovableClock;

beforeAll(async () => {
  ({ app, manager, partner, clock } = await startAgentDesk('Fair'));
});

afterAll(async () => {
  await app?.destroy();
});

async function createAgents(count: number, settings: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await manager.post<{ id: string }>('/api/agents', { name: `Agent ${i}`, ...settings });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

async function sendLeads(count: number, country: string, prefix: string): Promise<string[]> {
  const sent = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      partner.submitLead({ phone: `${prefix}${String(i).padStart(3, '0')}`, country, external_id: `${country}-${i}` }),
    ),
  );
  for (const res of sent) expect(res.status).toBe(200);
  return sent.map((res) => res.body.id as string);
}

// How many of these leads each agent got, once all are assigned.
async function shares(leadIds: string[], agents: string[]): Promise<number[]> {
  const leads = await until(
    async () => {
      const docs = await app.runtime.mongo.collections.leads.find({ _id: { $in: leadIds } }).toArray();
      return docs.length === leadIds.length && docs.every((d) => d.agent_id !== null) ? docs : null;
    },
    15_000,
    'every lead to be assigned',
  );
  return agents.map((id) => leads.filter((l) => l.agent_id === id).length);
}

it('shares nine leads sent at once among three agents three each', async () => {
  const agents = await createAgents(3, { countries: ['DE'] });
  const leads = await sendLeads(9, 'DE', '+49151123456');
  expect(await shares(leads, agents)).toEqual([3, 3, 3]);
});

it('shares six leads waiting for a shift among its two agents three each', async () => {
  const { start, weekday, range } = nextShift('UTC', clock.now());
  const agents = await createAgents(2, { countries: ['AT'], working_hours: { [weekday]: [range] } });
  const leads = await sendLeads(6, 'AT', '+43664123456');
  const waiting = await app.runtime.mongo.collections.leads.find({ _id: { $in: leads } }).toArray();
  expect(waiting.map((l) => l.agent_id)).toEqual(leads.map(() => null));
  clock.moveTo(start);
  expect(await shares(leads, agents)).toEqual([3, 3]);
});

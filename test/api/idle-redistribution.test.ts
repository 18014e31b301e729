import { randomUUID } from 'node:crypto';
import type { LeadDoc } from '../../src/shared/mongo/documents';
import type { AgentAction, LeadEvent } from '../../src/shared/schemas';
import { produce } from '../support/intake-commands';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe, until } from '../support/topic-probe';

// Idle redistribution on the real servers: a lead assigned and not worked for IDLE_REDISTRIBUTION_S
// goes to another eligible agent through the lead's own command topic, silently for the partner.
const IDLE_S = 2;
let app: TestApp;
let manager: ManagerClient;
let partner: PartnerClient;
let events: TopicProbe<LeadEvent>;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress,processor', IDLE_REDISTRIBUTION_S: String(IDLE_S) });
  manager = new ManagerClient(app.url);
  const created = (
    await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', { name: 'Idle' })
  ).body;
  partner = new PartnerClient(app.url, created);
  events = await new TopicProbe<LeadEvent>(app.runtime, 'leadEvents').start();
});

afterAll(async () => {
  await events?.stop();
  await app?.destroy();
});

const agent = async (name: string, countries: string[]) =>
  (await manager.post<{ id: string }>('/api/agents', { name, countries })).body.id;
const lead = (id: string) => app.runtime.mongo.collections.leads.findOne({ _id: id }) as Promise<LeadDoc>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function idleOutcomes(): Promise<Record<string, number>> {
  const metric = await app.runtime.metrics.getSingleMetric('lead_intake_idle_reassignments_total')?.get();
  return Object.fromEntries((metric?.values ?? []).map((v) => [String(v.labels.outcome), v.value]));
}

async function submitLead(country: string, phone: string): Promise<string> {
  const res = await partner.submitLead({ phone, country });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

it('hands an idle lead to another agent without a callback, records it in the history, and stops once the lead is worked', async () => {
  const agents = [await agent('Anna', ['DE']), await agent('Ben', ['DE'])];
  await sleep(1500); // the roster's next refresh
  const id = await submitLead('DE', '+4915112340001');
  const first = await until(
    async () => ((await lead(id))?.status === 'assigned' ? lead(id) : null),
    10_000,
    'the assignment at intake',
  );
  expect(agents).toContain(first.agent_id);
  const other = agents.find((a) => a !== first.agent_id);

  const moved = await until(
    async () => {
      const l = await lead(id);
      return l.agent_id === other ? l : null;
    },
    15_000,
    'the idle lead to go to the other agent',
  );
  expect(moved.status).toBe('assigned');
  expect(moved.history[2]).toMatchObject({
    from: 'assigned',
    to: 'assigned',
    event: null,
    agent_id: other,
    source: `distribution:idle:${id}:1`,
    why: expect.stringContaining(`not worked by ${first.agent_id}`),
  });
  // Counted once the owner's chunk is published, just after the lead is written.
  await until(async () => ((await idleOutcomes()).reassigned ?? 0) >= 1, 5_000, 'the reassignment to be counted');

  // The agent works it: no later check changes it any more.
  const action: AgentAction = {
    action_id: randomUUID(),
    lead_id: id,
    agent_id: moved.agent_id as string,
    status: 'contacted',
    occurred_at: new Date().toISOString(),
  };
  await produce(app.runtime, 'agentActions', [action], () => id);
  const worked = await until(
    async () => ((await lead(id)).status === 'contacted' ? lead(id) : null),
    15_000,
    'the agent action',
  );
  await sleep((IDLE_S + 3) * 1000);
  const after = await lead(id);
  expect(after).toMatchObject({ status: 'contacted', agent_id: worked.agent_id });
  expect(after.history).toHaveLength(worked.history.length);

  // The partner heard of acceptance, assignment and contact only: no event for a change of agent.
  const mine = events.values().filter((e) => e.lead_id === id);
  const statusEvents = after.history.flatMap((h, i) => (h.event ? [`${id}:${i}`] : []));
  expect(new Set(mine.map((e) => e.event_id))).toEqual(new Set(statusEvents));
  expect(after.history.filter((h) => h.event === null).length).toBeGreaterThanOrEqual(1);
}, 60_000);

it('keeps an idle lead with its agent while no other can take it, and moves it once one can', async () => {
  const only = await agent('Chloe', ['FR']);
  await sleep(1500);
  const id = await submitLead('FR', '+33612345001');
  await until(async () => ((await lead(id))?.agent_id === only ? true : null), 10_000, 'the assignment at intake');
  await until(async () => ((await idleOutcomes()).kept ?? 0) >= 1, 15_000, 'a kept check');
  expect(await lead(id)).toMatchObject({ status: 'assigned', agent_id: only });

  const second = await agent('Denis', ['FR']);
  const moved = await until(
    async () => ((await lead(id)).agent_id === second ? lead(id) : null),
    20_000,
    'the lead to go to the new agent',
  );
  expect(moved.status).toBe('assigned');
  expect(moved.history[moved.history.length - 1]).toMatchObject({
    from: 'assigned',
    to: 'assigned',
    event: null,
    agent_id: second,
  });
}, 60_000);

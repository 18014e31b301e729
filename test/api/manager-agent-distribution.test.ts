import { ManagerClient } from '../support/manager-client';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// An agent created through the manager API is all it takes for waiting leads to be distributed:
// the processor re-reads its agents and has the waiting leads that now fit assigned.
let app: TestApp;
let manager: ManagerClient;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress,processor' });
  manager = new ManagerClient(app.url);
});

afterAll(async () => {
  await app?.destroy();
});

it('assigns a waiting lead to a new agent that accepts its country and language, not to one that does not', async () => {
  const partner = (
    await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', { name: 'Distributed' })
  ).body;
  const intake = await new PartnerClient(app.url, partner).submitLead({
    phone: '+4915112345678',
    country: 'DE',
    language: 'de',
    external_id: 'wait-1',
  });
  expect(intake.status).toBe(200);
  const leadId = intake.body.id as string;

  const elsewhere = (await manager.post<{ id: string }>('/api/agents', { name: 'Far', countries: ['FR'] })).body;
  await new Promise((r) => setTimeout(r, 1500)); // three distribution scans
  expect(await app.runtime.mongo.collections.leads.findOne({ _id: leadId })).toMatchObject({
    status: 'new',
    agent_id: null,
  });

  const fitting = (
    await manager.post<{ id: string }>('/api/agents', { name: 'Near', countries: ['DE', 'AT'], languages: ['de'] })
  ).body;
  const assigned = await until(
    async () => {
      const lead = await app.runtime.mongo.collections.leads.findOne({ _id: leadId });
      return lead?.status === 'assigned' ? lead : null;
    },
    15000,
    'the lead to be assigned',
  );
  expect(assigned.agent_id).toBe(fitting.id);
  expect(assigned.agent_id).not.toBe(elsewhere.id);
  // Saved by the processor's next roster refresh (one DISTRIBUTION_INTERVAL_MS), not with every lead.
  await until(
    async () =>
      (await manager.get<{ last_assigned_at: string | null }>(`/api/agents/${fitting.id}`)).body.last_assigned_at,
    5000,
    'last_assigned_at',
  );
});

import type { ManagerClient } from '../support/manager-client';
import type { PartnerClient } from '../support/partner-client';
import { startAgentDesk } from '../support/agent-desk';
import type { TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// A manager's change to agents reaches the processor's roster at once, not at its next distribution
// tick: the tick here is ten minutes away for the whole file.
let app: TestApp;
let manager: ManagerClient;
let partner: PartnerClient;

beforeAll(async () => {
  ({ app, manager, partner } = await startAgentDesk('Seen', { DISTRIBUTION_INTERVAL_MS: '600000' }));
});

afterAll(async () => {
  await app?.destroy();
});

const leadOf = (id: string) => app.runtime.mongo.collections.leads.findOne({ _id: id });

async function send(phone: string, country: string): Promise<string> {
  const res = await partner.submitLead({ phone, country, external_id: phone });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

it('hands a lead sent right after an agent is created to that agent', async () => {
  const agent = (await manager.post<{ id: string }>('/api/agents', { name: 'New', countries: ['DE'] })).body;
  const leadId = await send('+4915112340001', 'DE');
  expect(await leadOf(leadId)).toMatchObject({ status: 'assigned', agent_id: agent.id });
});

it('stops handing leads to an agent as soon as a manager takes it off shift or deactivates it', async () => {
  const agent = (await manager.post<{ id: string }>('/api/agents', { name: 'Leaving', countries: ['FR'] })).body;
  expect(await leadOf(await send('+33612340001', 'FR'))).toMatchObject({ agent_id: agent.id });
  expect((await manager.patch(`/api/agents/${agent.id}`, { working_hours: {} })).status).toBe(200);
  expect(await leadOf(await send('+33612340002', 'FR'))).toMatchObject({ status: 'new', agent_id: null });
  expect((await manager.patch(`/api/agents/${agent.id}`, { working_hours: null, active: false })).status).toBe(200);
  expect(await leadOf(await send('+33612340003', 'FR'))).toMatchObject({ status: 'new', agent_id: null });
});

it('assigns a waiting lead as soon as an agent that fits it is created', async () => {
  const leadId = await send('+4366412340001', 'AT');
  expect(await leadOf(leadId)).toMatchObject({ status: 'new', agent_id: null });
  const agent = (await manager.post<{ id: string }>('/api/agents', { name: 'Late', countries: ['AT'] })).body;
  const assigned = await until(
    async () => {
      const lead = await leadOf(leadId);
      return lead?.status === 'assigned' ? lead : null;
    },
    15_000,
    'the waiting lead to be assigned',
  );
  expect(assigned.agent_id).toBe(agent.id);
});

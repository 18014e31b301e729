import type { ManagerClient } from '../support/manager-client';
import type { PartnerClient } from '../support/partner-client';
import { nextShift, startAgentDesk, type MovableClock } from '../support/agent-desk';
import type { TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// Agents' working hours on the real servers: a lead that arrives while nobody is on shift waits in
// `new`, and is assigned by the processor's clock when a shift starts (the clock moved on to it).
let app: TestApp;
let manager: ManagerClient;
let partner: PartnerClient;
let clock: MovableClock;

beforeAll(async () => {
  ({ app, manager, partner, clock } = await startAgentDesk('Shifts'));
});

afterAll(async () => {
  await app?.destroy();
});

it('keeps a lead waiting while its agent is off shift and assigns it when the shift starts', async () => {
  const { start, weekday, range: shift } = nextShift('America/New_York', clock.now());
  const agent = await manager.post<{ id: string; time_zone: string; working_hours: Record<string, string[]> }>(
    '/api/agents',
    {
      name: 'Night owl',
      countries: ['US'],
      time_zone: 'America/New_York',
      working_hours: { [weekday]: [shift] },
    },
  );
  expect(agent.status).toBe(201);
  expect(agent.body).toMatchObject({ time_zone: 'America/New_York', working_hours: { [weekday]: [shift] } });
  // Never on shift: an empty week.
  const never = (
    await manager.post<{ id: string }>('/api/agents', { name: 'Never', countries: ['US'], working_hours: {} })
  ).body;

  const intake = await partner.submitLead({ phone: '+12025550143', country: 'US' });
  expect(intake.status).toBe(200);
  const leadId = intake.body.id as string;
  const lead = () => app.runtime.mongo.collections.leads.findOne({ _id: leadId });

  // Three seconds before the shift, after a few of the processor's rounds (every 500 ms): still waiting.
  clock.moveTo(new Date(start.getTime() - 3000));
  await new Promise((r) => setTimeout(r, 1500));
  expect(await lead()).toMatchObject({ status: 'new', agent_id: null });
  expect(await app.runtime.mongo.collections.waitingLeads.findOne({ _id: leadId })).not.toBeNull();

  clock.moveTo(start);
  const assigned = await until(
    async () => {
      const l = await lead();
      return l?.status === 'assigned' ? l : null;
    },
    20_000,
    'the lead to be assigned once the shift starts',
  );
  expect(assigned.updated_at.getTime()).toBeGreaterThanOrEqual(start.getTime());
  expect(assigned.agent_id).toBe(agent.body.id);
  expect(assigned.agent_id).not.toBe(never.id);
  await until(
    async () => (await app.runtime.mongo.collections.waitingLeads.findOne({ _id: leadId })) === null,
    5000,
    'the lead to leave waiting_leads',
  );
});

it('refuses bad time zones and working hours with 422, changing nothing', async () => {
  const agent = (
    await manager.post<{ id: string }>('/api/agents', { name: 'Checked', working_hours: { mon: ['09:00-17:00'] } })
  ).body;
  for (const body of [
    { time_zone: 'Nowhere/City' },
    { working_hours: { mon: ['25:00-26:00'] } },
    { working_hours: { mon: ['9:00-17:00'] } },
    { working_hours: { funday: ['09:00-17:00'] } },
    { working_hours: { mon: '09:00-17:00' } },
  ]) {
    const res = await manager.patch(`/api/agents/${agent.id}`, body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'invalid_request' });
  }
  expect((await manager.post('/api/agents', { name: 'Bad zone', time_zone: 'Mars/Olympus' })).status).toBe(422);
  const stored = await manager.get(`/api/agents/${agent.id}`);
  expect(stored.body).toMatchObject({ working_hours: { mon: ['09:00-17:00'] } });
  expect(stored.body).not.toHaveProperty('time_zone');
  // null clears the hours: always on shift.
  expect(
    (await manager.patch(`/api/agents/${agent.id}`, { working_hours: null, time_zone: 'Asia/Tokyo' })).body,
  ).toMatchObject({ working_hours: null, time_zone: 'Asia/Tokyo' });
});

import { ManagerClient } from '../support/manager-client';
import { startTestApp, type TestApp } from '../support/test-app';

// Agents through the manager API: create, list, show, change, and their validation.
let app: TestApp;
let manager: ManagerClient;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  manager = new ManagerClient(app.url);
});

afterAll(async () => {
  await app?.destroy();
});

describe('agents', () => {
  it('creates an active agent that accepts any country and language by default', async () => {
    const res = await manager.post('/api/agents', { name: 'Ann' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ag-[0-9a-f]{16}$/),
      name: 'Ann',
      active: true,
      countries: [],
      languages: [],
      last_assigned_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await app.runtime.mongo.collections.agents.findOne({ _id: res.body.id as string })).toMatchObject({
      name: 'Ann',
      active: true,
    });
  });

  it('lists, shows and changes agents', async () => {
    const created = (await manager.post('/api/agents', { name: 'Bob', countries: ['DE', 'AT'], languages: ['de'] }))
      .body;
    const changed = await manager.patch(`/api/agents/${created.id}`, {
      active: false,
      countries: ['CH'],
      languages: ['de', 'fr'],
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      id: created.id,
      name: 'Bob',
      active: false,
      countries: ['CH'],
      languages: ['de', 'fr'],
    });
    expect((await manager.get(`/api/agents/${created.id}`)).body).toEqual(changed.body);
    const inactive = await manager.get<{ items: { id: string }[] }>('/api/agents?active=false');
    expect(inactive.body.items.map((a) => a.id)).toContain(created.id);
    const active = await manager.get<{ items: { id: string }[] }>('/api/agents?active=true');
    expect(active.body.items.map((a) => a.id)).not.toContain(created.id);
  });

  it('audits creation and changes', async () => {
    const created = (await manager.post('/api/agents', { name: 'Cy' })).body;
    await manager.patch(`/api/agents/${created.id}`, { active: false });
    const actions = (
      await app.runtime.mongo.collections.audit
        .find({ target: created.id as string })
        .sort({ at: 1 })
        .toArray()
    ).map((a) => a.action);
    expect(actions).toEqual(['agent.create', 'agent.update']);
  });

  it.each([
    ['no name', { countries: ['DE'] }],
    ['a lower-case country', { name: 'x', countries: ['de'] }],
    ['a long language code', { name: 'x', languages: ['german'] }],
    ['an unknown field', { name: 'x', skill: 'sales' }],
    ['an active flag that is not boolean', { name: 'x', active: 'yes' }],
  ])('refuses %s with 422', async (_what, body) => {
    const res = await manager.post('/api/agents', body);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('invalid_request');
  });

  it('answers 404 for an unknown agent and 422 for an empty change', async () => {
    expect((await manager.get('/api/agents/ag-0000000000000000')).status).toBe(404);
    expect((await manager.patch('/api/agents/ag-0000000000000000', { active: true })).status).toBe(404);
    const created = (await manager.post('/api/agents', { name: 'Di' })).body;
    expect((await manager.patch(`/api/agents/${created.id}`, {})).status).toBe(422);
  });

  it('needs a manager token', async () => {
    expect((await manager.withToken(null).post('/api/agents', { name: 'x' })).status).toBe(401);
  });
});

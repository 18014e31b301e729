import type { AgentAction, LeadAssignment } from '../../src/shared/schemas';
import { ManagerClient } from '../support/manager-client';
import { roleToken } from '../support/manager-data';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';
import { readTopicToEnd } from '../support/topic-reader';
import { agentRecord, leadDoc, person, waitLead, workspacePartner, type Person } from '../support/workspace-team';

// The agent workspace's API on the real servers: an agent's queue (new leads oldest first, a worked
// lead after them, a callback that comes due jumping to the top, never another agent's lead), numbers
// masked, outcomes landing through crm.agent-actions and changing the status, a supervisor's team
// queues and a reassignment through the lead's owner with a `reassigned` feed message; refusals for
// everyone else.
let app: TestApp;
let manager: ManagerClient;
let sup: Person;
let otherSup: Person;
let anna: Person; // works as agent A (GB leads)
let ben: Person; // works as agent B (IE leads), same team
const agents: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };
const leads: Record<string, { id: string; phone: string }> = {};

type Queue = {
  items: { id: string; queue: string; status: string; phone: string | null; callback_at: string | null }[];
  next_cursor: string | null;
};
const queueOf = async (p: Person, path = '/api/workspace/leads') => {
  const res = await p.client.get<Queue>(path);
  expect(res.status).toBe(200);
  return res.body;
};
const order = async (p: Person) => (await queueOf(p)).items.map((i) => [i.id, i.queue]);

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'all' });
  manager = new ManagerClient(app.url);
  sup = await person(app, 'supervisor', 'Sue Supervisor');
  otherSup = await person(app, 'supervisor', 'Otto Othersup');
  agents.a = await agentRecord(manager, 'Anna', 'GB', sup.id);
  agents.b = await agentRecord(manager, 'Ben', 'IE', sup.id);
  agents.c = await agentRecord(manager, 'Chloe', 'FR', otherSup.id);
  anna = await person(app, 'agent', 'Anna Agent', agents.a);
  ben = await person(app, 'agent', 'Ben Agent', agents.b);
  await new Promise((r) => setTimeout(r, 1500)); // the roster's next refresh
  const partner = await workspacePartner(app, manager, 'Workspace partner');
  for (const [key, country, n] of [
    ['g1', 'GB', 1],
    ['g2', 'GB', 2],
    ['g3', 'GB', 3],
    ['f1', 'FR', 4],
  ] as const) {
    leads[key] = await partner.send(country, n);
    await waitLead(app, leads[key]!.id, `${key} assigned`, (l) => l.status === 'assigned');
  }
}, 120_000);

afterAll(async () => {
  await app?.destroy();
});

describe('an agent', () => {
  it('sees only their own open leads, new ones oldest first, each number masked', async () => {
    const queue = await queueOf(anna);
    expect(queue.items.map((i) => [i.id, i.queue, i.status])).toEqual([
      [leads.g1!.id, 'new', 'assigned'],
      [leads.g2!.id, 'new', 'assigned'],
      [leads.g3!.id, 'new', 'assigned'],
    ]);
    for (const item of queue.items) {
      const phone = Object.values(leads).find((l) => l.id === item.id)!.phone;
      expect(item.phone).toBe(`+44 79** ***${phone.slice(-3)}`);
      expect(JSON.stringify(queue)).not.toContain(phone.slice(3));
    }
    expect((await queueOf(ben)).items).toEqual([]);
    // A page at a time: the cursor carries on where the page ended.
    const first = await queueOf(anna, '/api/workspace/leads?limit=2');
    expect(first.items.map((i) => i.id)).toEqual([leads.g1!.id, leads.g2!.id]);
    const rest = await queueOf(anna, `/api/workspace/leads?limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(rest.items.map((i) => i.id)).toEqual([leads.g3!.id]);
  });

  it("opens a card of their lead: partner, country, language, source, history, depositor flag, masked number; another's is unknown", async () => {
    const card = await anna.client.get<Record<string, unknown>>(`/api/workspace/leads/${leads.g1!.id}`);
    expect(card.status).toBe(200);
    expect(card.body).toMatchObject({
      id: leads.g1!.id,
      partner_name: 'Workspace partner',
      country_code: 'GB',
      language: 'en',
      source: 'search',
      is_depositor: false,
      phone: `+44 79** ***${leads.g1!.phone.slice(-3)}`,
      outcomes: ['contacted', 'callback', 'interested', 'no_answer', 'wrong_number', 'trash'],
    });
    expect(JSON.stringify(card.body)).not.toMatch(/Wanda|ws1@example|amount/);
    expect((await anna.client.get(`/api/workspace/leads/${leads.f1!.id}`)).status).toBe(404);
    expect((await ben.client.get(`/api/workspace/leads/${leads.g1!.id}`)).status).toBe(404);
    expect(
      (await anna.client.post(`/api/workspace/leads/${leads.f1!.id}/outcome`, { outcome: 'contacted' })).status,
    ).toBe(404);
  });

  it('records outcomes through crm.agent-actions; the worked lead moves down, a callback comes due and jumps to the top', async () => {
    const contacted = await anna.client.post<{ action_id: string; status: string }>(
      `/api/workspace/leads/${leads.g1!.id}/outcome`,
      { outcome: 'contacted' },
    );
    expect(contacted).toMatchObject({
      status: 202,
      body: { status: 'contacted', action_id: expect.stringMatching(/^ws-/) },
    });
    const applied = await waitLead(app, leads.g1!.id, 'the contacted outcome', (l) => l.status === 'contacted');
    expect(applied.history.at(-1)).toMatchObject({
      source: `agent-action:${contacted.body.action_id}`,
      why: `agent ${agents.a}`,
    });
    expect(await order(anna)).toEqual([
      [leads.g2!.id, 'new'],
      [leads.g3!.id, 'new'],
      [leads.g1!.id, 'worked'],
    ]);

    const dueAt = new Date(Date.now() + 4000);
    const callback = await anna.client.post<{ action_id: string; callback_at: string }>(
      `/api/workspace/leads/${leads.g3!.id}/outcome`,
      { outcome: 'callback', callback_at: dueAt.toISOString() },
    );
    expect(callback.status).toBe(202);
    await waitLead(app, leads.g3!.id, 'the callback', (l) => l.status === 'callback');
    expect(await order(anna)).toEqual([
      [leads.g2!.id, 'new'],
      [leads.g1!.id, 'worked'],
      [leads.g3!.id, 'callback_later'],
    ]);
    await until(async () => (await order(anna))[0]![0] === leads.g3!.id, 15_000, 'the callback to come due');
    expect(await order(anna)).toEqual([
      [leads.g3!.id, 'callback_due'],
      [leads.g2!.id, 'new'],
      [leads.g1!.id, 'worked'],
    ]);

    // On the CRM topic exactly as a CRM's agent action.
    const published = (await readTopicToEnd<AgentAction>(app.runtime, 'agentActions')).filter(
      (m) => m.value.lead_id === leads.g3!.id,
    );
    expect(published.map((m) => [m.key, m.value])).toEqual([
      [
        leads.g3!.id,
        {
          action_id: callback.body.action_id,
          lead_id: leads.g3!.id,
          agent_id: agents.a,
          status: 'callback',
          occurred_at: expect.any(String),
          callback_at: dueAt.toISOString(),
        },
      ],
    ]);

    // The call back's outcome clears the callback: the lead is an ordinary worked lead again.
    expect(
      (await anna.client.post(`/api/workspace/leads/${leads.g3!.id}/outcome`, { outcome: 'interested' })).status,
    ).toBe(202);
    const interested = await waitLead(app, leads.g3!.id, 'interested', (l) => l.status === 'interested');
    expect(interested.callback_at).toBeNull();
    expect(await order(anna)).toEqual([
      [leads.g2!.id, 'new'],
      [leads.g1!.id, 'worked'],
      [leads.g3!.id, 'worked'],
    ]);
  }, 60_000);

  it('is refused what the catalogue or the request does not allow', async () => {
    const post = (body: unknown, id = leads.g2!.id) =>
      anna.client.post<{ error: string; message: string }>(`/api/workspace/leads/${id}/outcome`, body);
    expect(await post({ outcome: 'callback' })).toMatchObject({ status: 422, body: { error: 'invalid_request' } });
    expect(await post({ outcome: 'contacted', callback_at: new Date().toISOString() })).toMatchObject({ status: 422 });
    expect(
      await post({ outcome: 'callback', callback_at: new Date(Date.now() - 3600_000).toISOString() }),
    ).toMatchObject({ status: 422 });
    expect(await post({ outcome: 'sold' })).toMatchObject({ status: 422 });
    expect((await post({ outcome: 'trash' })).status).toBe(202);
    await waitLead(app, leads.g2!.id, 'trash', (l) => l.status === 'trash');
    expect(await post({ outcome: 'contacted' })).toMatchObject({ status: 409, body: { error: 'conflict' } });
    expect((await order(anna)).map(([id]) => id)).not.toContain(leads.g2!.id);
  });

  it('refuses an agent account linked to no agent record, and every other role', async () => {
    const loose = await person(app, 'agent', 'Loose Agent');
    expect(await loose.client.get('/api/workspace/leads')).toMatchObject({ status: 409, body: { error: 'conflict' } });
    expect((await sup.client.get('/api/workspace/leads')).status).toBe(403);
    expect((await anna.client.get('/api/workspace/team')).status).toBe(403);
    expect((await manager.get('/api/workspace/leads')).status).toBe(403);
    expect((await manager.get('/api/workspace/team')).status).toBe(403);
    const analyst = manager.withToken((await roleToken(app.url, 'analyst')).token);
    expect((await analyst.post(`/api/workspace/leads/${leads.g1!.id}/reassign`, { agent_id: agents.b })).status).toBe(
      403,
    );
  });
});

describe('a supervisor', () => {
  it("sees the team's queues, never another team's", async () => {
    const team = await sup.client.get<{ agents: { id: string; name: string; queue: Queue }[] }>('/api/workspace/team');
    expect(team.status).toBe(200);
    expect(team.body.agents.map((a) => [a.name, a.queue.items.map((i) => i.id)])).toEqual([
      ['Anna', [leads.g1!.id, leads.g3!.id]],
      ['Ben', []],
    ]);
    const other = await otherSup.client.get<{ agents: { id: string; queue: Queue }[] }>('/api/workspace/team');
    expect(other.body.agents.map((a) => [a.id, a.queue.items.map((i) => i.id)])).toEqual([[agents.c, [leads.f1!.id]]]);
    expect((await otherSup.client.get(`/api/workspace/team/agents/${agents.a}/leads`)).status).toBe(404);
    expect(
      (await sup.client.get<Queue>(`/api/workspace/team/agents/${agents.a}/leads?limit=1`)).body.items.map((i) => i.id),
    ).toEqual([leads.g1!.id]);
  });

  it("reassigns a team's lead through its owner: the new agent's queue has it, the feed says reassigned, the audit log who", async () => {
    expect(
      (await otherSup.client.post(`/api/workspace/leads/${leads.g1!.id}/reassign`, { agent_id: agents.c })).status,
    ).toBe(404);
    expect(
      (await sup.client.post(`/api/workspace/leads/${leads.g1!.id}/reassign`, { agent_id: agents.c })).status,
    ).toBe(422);
    expect(
      (await sup.client.post(`/api/workspace/leads/${leads.g1!.id}/reassign`, { agent_id: agents.a })).status,
    ).toBe(409);
    expect(
      (await sup.client.post(`/api/workspace/leads/${leads.g2!.id}/reassign`, { agent_id: agents.b })).status,
    ).toBe(409); // trash: ended

    const res = await sup.client.post(`/api/workspace/leads/${leads.g1!.id}/reassign`, { agent_id: agents.b });
    expect(res).toMatchObject({
      status: 202,
      body: { lead_id: leads.g1!.id, from_agent_id: agents.a, to_agent_id: agents.b },
    });
    const moved = await waitLead(app, leads.g1!.id, 'the reassignment', (l) => l.agent_id === agents.b);
    expect(moved.status).toBe('contacted');
    expect(moved.history.at(-1)).toMatchObject({
      from: 'contacted',
      to: 'contacted',
      event: null,
      agent_id: agents.b,
      why: `reassigned from ${agents.a} to ${agents.b} by ${sup.id}`,
    });
    expect(await order(ben)).toEqual([[leads.g1!.id, 'worked']]);
    expect((await order(anna)).map(([id]) => id)).toEqual([leads.g3!.id]);
    expect((await anna.client.get(`/api/workspace/leads/${leads.g1!.id}`)).status).toBe(404);

    const feed = await until(
      async () => {
        const msgs = (await readTopicToEnd<LeadAssignment>(app.runtime, 'leadAssignments')).filter(
          (m) => m.value.lead_id === leads.g1!.id,
        );
        return msgs.length === 2 ? msgs : null;
      },
      15_000,
      'the feed message',
    );
    expect(feed.map((m) => [m.value.reason, m.value.previous_agent_id, m.value.agent_id, m.value.status])).toEqual([
      ['intake', null, agents.a, 'assigned'],
      ['reassigned', agents.a, agents.b, 'contacted'],
    ]);
    const audit = await manager.get<{
      items: { action: string; actor: string; target: string; details: Record<string, unknown> }[];
    }>('/api/audit-log?action=lead.reassign');
    expect(audit.body.items[0]).toMatchObject({
      actor: sup.id,
      target: leads.g1!.id,
      details: { from_agent_id: agents.a, to_agent_id: agents.b },
    });
    expect((await leadDoc(app, leads.g1!.id)).agent_id).toBe(agents.b);
  }, 60_000);
});

import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/shared/config';
import type { AgentAction, IntakeCommand, IntakeReply, LeadEvent } from '../../src/shared/schemas';
import { startChildRole, type ChildRole } from '../support/child-role';
import { intakeCommand, produce } from '../support/intake-commands';
import { dropTestData } from '../support/test-app';
import { testEnv } from '../support/test-config';
import { startApp, type App } from '../../src/app';
import { createLogger } from '../../src/shared/logger';
import { TopicProbe, until } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// kill -9 of the processor in the middle of a steady stream, then a restart: no accepted lead lost,
// no lead accepted twice, no lead event lost, and no lead changed twice by one CRM message.
const env = testEnv({ DISTRIBUTION_INTERVAL_MS: '300' });
const config = loadConfig(env);
let client: App;
let child: ChildRole;
let replies: TopicProbe<IntakeReply>;
let events: TopicProbe<LeadEvent>;

beforeAll(async () => {
  // A bare runtime for producing and probing; the processor under test is the child process.
  client = await startApp({ ...config, roles: [] } as typeof config, createLogger('silent'));
  replies = await new TopicProbe<IntakeReply>(client.runtime, 'intakeReplies').start();
  events = await new TopicProbe<LeadEvent>(client.runtime, 'leadEvents').start();
  await client.runtime.mongo.collections.agents.insertOne({
    _id: 'ag-crash',
    name: 'Crash',
    active: true,
    countries: [],
    languages: [],
    created_at: new Date(),
    updated_at: new Date(),
  });
  child = await startChildRole('processor', env);
}, 90_000);

afterAll(async () => {
  await child?.kill();
  await Promise.all([replies?.stop(), events?.stop()]);
  await client?.stop();
  await dropTestData(config);
});

it('loses and doubles nothing across a kill -9 and restart', async () => {
  const partner = (await servicesOf(client.runtime).partners.create({ name: 'Crash' })).partner.id;
  const commands: IntakeCommand[] = [];
  const sendWave = async (count: number) => {
    const wave = Array.from({ length: count }, (_, i) =>
      intakeCommand(client.runtime, partner, { phone: `+4479113${String(10000 + commands.length + i)}` }),
    );
    commands.push(...wave);
    await produce(client.runtime, 'intakeCommands', wave, (_v, i) => `w${commands.length}-${i}`);
  };
  // Half the stream goes in; the processor is killed while it is working through it.
  for (let i = 0; i < 10; i++) await sendWave(10);
  await replies.waitFor((rs) => rs.length >= 20, 30000, 'first decisions');
  await child.kill('SIGKILL');
  for (let i = 0; i < 10; i++) await sendWave(10);
  child = await startChildRole('processor', env);

  const ids = new Set(commands.map((c) => c.correlation_id));
  await replies.waitFor(
    (rs) => new Set(rs.filter((r) => ids.has(r.correlation_id)).map((r) => r.correlation_id)).size === ids.size,
    150000,
    'all decisions',
  );
  // Every command was decided once: a redelivered command answers with the same decision.
  const decisions = new Map<string, string>();
  for (const r of replies.values().filter((x) => ids.has(x.correlation_id))) {
    const seen = decisions.get(r.correlation_id);
    expect(seen === undefined || seen === r.decision.lead_id).toBe(true);
    decisions.set(r.correlation_id, r.decision.lead_id!);
    expect(r.decision.outcome).toBe('accepted');
  }
  const leadIds = [...decisions.values()];
  expect(new Set(leadIds).size).toBe(200);
  const leads = client.runtime.mongo.collections.leads;
  expect(await leads.countDocuments({ partner_id: partner })).toBe(200);

  // CRM traffic across a second kill, once every lead is with an agent: an action on a lead still
  // `new` would be a different (valid) history, new -> contacted.
  await until(
    async () => (await leads.countDocuments({ partner_id: partner, status: 'assigned' })) === 200,
    60000,
    'every lead assigned',
  );
  const actions: AgentAction[] = leadIds.map((id) => ({
    action_id: randomUUID(),
    lead_id: id,
    status: 'contacted',
    occurred_at: new Date().toISOString(),
  }));
  await produce(client.runtime, 'agentActions', actions.slice(0, 100), (v) => (v as AgentAction).lead_id);
  await events.waitFor((es) => es.filter((e) => e.our_status === 'contacted').length >= 10, 30000, 'some contacted');
  await child.kill('SIGKILL');
  await produce(client.runtime, 'agentActions', actions.slice(100), (v) => (v as AgentAction).lead_id);
  await produce(client.runtime, 'agentActions', actions.slice(0, 50), (v) => (v as AgentAction).lead_id); // redelivered by the CRM
  child = await startChildRole('processor', env);

  // Every lead ends contacted, with history new -> assigned -> contacted and no step twice.
  const expected = new Set(leadIds.flatMap((id) => [`${id}:0`, `${id}:1`, `${id}:2`]));
  await events.waitFor(
    (es) => new Set(es.map((e) => e.event_id).filter((e) => expected.has(e))).size === expected.size,
    150000,
    'every event',
  );
  const all = await leads.find({ partner_id: partner }).toArray();
  for (const lead of all) {
    expect(lead.history.map((h) => h.to)).toEqual(['new', 'assigned', 'contacted']);
  }
  // Same event id, same content: a republished event is a repeat, never a different event.
  const byId = new Map<string, string>();
  for (const e of events.values()) {
    const prior = byId.get(e.event_id);
    expect(prior === undefined || prior === JSON.stringify(e)).toBe(true);
    byId.set(e.event_id, JSON.stringify(e));
  }
}, 420_000);

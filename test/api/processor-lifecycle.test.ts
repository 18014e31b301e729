import { randomUUID } from 'node:crypto';
import type { AgentDoc } from '../../src/shared/mongo/documents';
import type { AgentAction, Deposit, IntakeReply, LeadEvent } from '../../src/shared/schemas';
import { byPhone, intakeCommand, produce } from '../support/intake-commands';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe, until } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// The lead lifecycle from CRM events (spec 3.2, 6.1), over the real topics.
let app: TestApp;
let replies: TopicProbe<IntakeReply>;
let events: TopicProbe<LeadEvent>;
let dead: TopicProbe<Buffer>;
let partner: string;
let n = 0;

beforeAll(async () => {
  // Parked CRM messages are given 3 s here before they are dead-lettered (15 minutes by default).
  app = await startTestApp({ ROLE: 'processor', CRM_PARK_MAX_MS: '3000' });
  replies = await new TopicProbe<IntakeReply>(app.runtime, 'intakeReplies').start();
  events = await new TopicProbe<LeadEvent>(app.runtime, 'leadEvents').start();
  dead = await new TopicProbe<Buffer>(app.runtime, 'crmDeadLetter', true).start();
  partner = (await servicesOf(app.runtime).partners.create({ name: 'Lifecycle' })).partner.id;
  const now = new Date();
  const agent: AgentDoc = {
    _id: 'ag-any',
    name: 'Any',
    active: true,
    countries: [],
    languages: [],
    created_at: now,
    updated_at: now,
  };
  await app.runtime.mongo.collections.agents.insertOne(agent);
});

afterAll(async () => {
  await Promise.all([replies?.stop(), events?.stop(), dead?.stop()]);
  await app?.destroy();
});

async function acceptedLead(): Promise<string> {
  const cmd = intakeCommand(app.runtime, partner, { phone: `+4479112${String(10000 + ++n)}` });
  await produce(app.runtime, 'intakeCommands', [cmd], byPhone(app.runtime));
  const rs = await replies.waitFor((all) => all.some((r) => r.correlation_id === cmd.correlation_id));
  const id = rs.find((r) => r.correlation_id === cmd.correlation_id)!.decision.lead_id!;
  await eventsOf(id, 2); // accepted, then assigned
  return id;
}

const eventsOf = (leadId: string, count: number) =>
  events
    .waitFor((es) => es.filter((e) => e.lead_id === leadId).length >= count, 20000, `${count} events of ${leadId}`)
    .then((es) => es.filter((e) => e.lead_id === leadId));

const action = (leadId: string, status: string, id = randomUUID()): AgentAction => ({
  action_id: id,
  lead_id: leadId,
  agent_id: 'ag-any',
  status,
  occurred_at: new Date().toISOString(),
});
const deposit = (leadId: string, type: Deposit['type'] = 'deposit', id = randomUUID()): Deposit => ({
  deposit_id: id,
  lead_id: leadId,
  type,
  amount: '250.00',
  currency: 'EUR',
  occurred_at: new Date().toISOString(),
});
const reasonOf = (key: string) =>
  dead
    .waitFor(() => dead.seen.some((s) => s.key === key), 20000, `dead letter ${key}`)
    .then(() => dead.seen.find((s) => s.key === key)!.headers['x-dead-letter-reason']?.toString());
const sendActions = (...a: AgentAction[]) => produce(app.runtime, 'agentActions', a, (v) => (v as AgentAction).lead_id);
const sendDeposits = (...d: Deposit[]) => produce(app.runtime, 'deposits', d, (v) => (v as Deposit).lead_id);

it('distribution moves new to assigned with lead.status_changed from new', async () => {
  const id = await acceptedLead();
  const es = await eventsOf(id, 2);
  expect(es.map((e) => [e.event, e.our_status, e.from_status])).toEqual([
    ['lead.accepted', 'new', undefined],
    ['lead.status_changed', 'assigned', 'new'],
  ]);
  expect(await app.runtime.mongo.collections.leads.findOne({ _id: id })).toMatchObject({
    status: 'assigned',
    agent_id: 'ag-any',
  });
});

it('contacted, ftd (one client), rtd twice, chargeback: each with its event and is_depositor', async () => {
  const id = await acceptedLead();
  await sendActions(action(id, 'contacted'));
  await eventsOf(id, 3);
  const first = deposit(id);
  await sendDeposits(first, first); // the same deposit twice: one ftd, one client
  await eventsOf(id, 4);
  await sendDeposits(deposit(id));
  await eventsOf(id, 5);
  await sendDeposits(deposit(id));
  await eventsOf(id, 6);
  await sendDeposits(deposit(id, 'chargeback'));
  const es = await eventsOf(id, 7);
  expect(es.slice(2).map((e) => [e.event, e.our_status, e.from_status, e.is_depositor])).toEqual([
    ['lead.status_changed', 'contacted', 'assigned', false],
    ['lead.ftd', 'ftd', undefined, true],
    ['lead.rtd', 'rtd', undefined, true],
    ['lead.rtd', 'rtd', undefined, true],
    ['lead.status_changed', 'chargeback', 'rtd', true],
  ]);
  const lead = await app.runtime.mongo.collections.leads.findOne({ _id: id });
  expect(lead).toMatchObject({ status: 'chargeback', is_depositor: true, client_id: `cl-${id.slice(3)}` });
  expect(await app.runtime.mongo.collections.clients.countDocuments({ lead_id: id })).toBe(1);
  expect(await app.runtime.mongo.collections.deposits.countDocuments({ lead_id: id })).toBe(4);
  expect(lead!.history.map((h) => h.to)).toEqual(['new', 'assigned', 'contacted', 'ftd', 'rtd', 'rtd', 'chargeback']);
});

// Deposits and agent actions travel on two topics with no order between them: the CRM may log the
// deposit before the agent's "contacted" arrives. A deposit is a fact: it is never dropped.
it('a first deposit before any contact makes the lead a client at once', async () => {
  const id = await acceptedLead();
  await sendDeposits(deposit(id));
  const es = await eventsOf(id, 3);
  expect(es[2]).toMatchObject({ event: 'lead.ftd', our_status: 'ftd', is_depositor: true });
  expect(await app.runtime.mongo.collections.leads.findOne({ _id: id })).toMatchObject({
    status: 'ftd',
    client_id: `cl-${id.slice(3)}`,
  });
  expect(await app.runtime.mongo.collections.clients.countDocuments({ lead_id: id })).toBe(1);
  await sendActions(action(id, 'contacted')); // the late "contacted" can no longer apply: the lead is a client
  expect(await reasonOf(id)).toBe('illegal_transition');
});

describe('parked until it can apply', () => {
  it('a chargeback before the first deposit waits for it, then applies after it', async () => {
    const id = await acceptedLead();
    await sendDeposits(deposit(id, 'chargeback'));
    await new Promise((r) => setTimeout(r, 500));
    await sendDeposits(deposit(id));
    const es = await eventsOf(id, 4);
    expect(es.slice(2).map((e) => [e.event, e.our_status])).toEqual([
      ['lead.ftd', 'ftd'],
      ['lead.status_changed', 'chargeback'],
    ]);
    expect(await app.runtime.mongo.collections.deposits.countDocuments({ lead_id: id })).toBe(2);
    expect(await app.runtime.mongo.collections.parkedMessages.countDocuments({ lead_id: id })).toBe(0);
    expect(dead.seen.some((s) => s.key === id)).toBe(false);
  });

  it('an action for a lead not created yet is applied once the lead exists', async () => {
    const before = await acceptedLead();
    const next = `le-${Number(before.slice(3)) + 1}`; // this processor's next lead number
    await sendActions(action(next, 'contacted'));
    await new Promise((r) => setTimeout(r, 500));
    expect(await acceptedLead()).toBe(next);
    const es = await eventsOf(next, 3);
    expect(es[2]).toMatchObject({ event: 'lead.status_changed', our_status: 'contacted', from_status: 'assigned' });
    expect(dead.seen.some((s) => s.key === next)).toBe(false);
  });
});

it.each(['trash', 'no_answer', 'wrong_number'])(
  'contacted -> %s is terminal: later actions are dead-lettered',
  async (status) => {
    const id = await acceptedLead();
    await sendActions(action(id, 'contacted'), action(id, status));
    const es = await eventsOf(id, 4);
    expect(es[3]).toMatchObject({
      event: 'lead.status_changed',
      our_status: status,
      from_status: 'contacted',
      is_depositor: false,
    });
    await sendActions(action(id, 'contacted'));
    await dead.waitFor(
      (d) =>
        d.length > 0 &&
        dead.seen.some((s) => s.key === id && s.headers['x-dead-letter-reason']?.toString() === 'terminal_status'),
    );
  },
);

it('a redelivered agent action changes nothing and emits nothing again', async () => {
  const id = await acceptedLead();
  const a = action(id, 'contacted');
  await sendActions(a, a, a);
  await eventsOf(id, 3);
  await new Promise((r) => setTimeout(r, 800));
  expect(events.values().filter((e) => e.lead_id === id)).toHaveLength(3);
  expect((await app.runtime.mongo.collections.leads.findOne({ _id: id }))!.history).toHaveLength(3);
});

describe('dead letters', () => {
  it('an illegal transition', async () => {
    const id = await acceptedLead();
    await sendActions(action(id, 'new')); // no status moves back to new
    expect(await reasonOf(id)).toBe('illegal_transition');
  });

  it('a deposit after a chargeback: the lead is terminal, the money is not kept', async () => {
    const id = await acceptedLead();
    await sendDeposits(deposit(id), deposit(id, 'chargeback'));
    await eventsOf(id, 4);
    await sendDeposits(deposit(id));
    expect(await reasonOf(id)).toBe('terminal_status');
    expect(await app.runtime.mongo.collections.deposits.countDocuments({ lead_id: id })).toBe(2);
  });

  it('an unknown lead, once its parking time is up', async () => {
    const sent = Date.now();
    await sendActions(action('le-999999999', 'contacted'));
    expect(await reasonOf('le-999999999')).toBe('unknown_lead');
    expect(Date.now() - sent).toBeGreaterThanOrEqual(3000);
  });

  it('a chargeback that never gets its deposit, once its parking time is up', async () => {
    const id = await acceptedLead();
    await sendDeposits(deposit(id, 'chargeback'));
    expect(await reasonOf(id)).toBe('chargeback_before_deposit');
    expect(await app.runtime.mongo.collections.deposits.countDocuments({ lead_id: id })).toBe(0);
  });

  it('an unknown status', async () => {
    const id = await acceptedLead();
    await sendActions(action(id, 'vip'));
    expect(await reasonOf(id)).toBe('unknown_status');
  });

  it('bytes that are not in the wire format, and a payload that breaks the schema', async () => {
    await app.runtime.producer.send({
      topic: app.runtime.topics.agentActions,
      messages: [{ key: 'garbage', value: Buffer.from('{"not":"framed"}') }],
    });
    expect(await reasonOf('garbage')).toBe('malformed_message');
    // Framed with the registered schema id, but missing required fields.
    const framed = await app.runtime.codec.encode('agentActions', action('le-1', 'contacted'));
    const bad = Buffer.concat([framed.subarray(0, 5), Buffer.from('{"lead_id":"le-1"}')]);
    await app.runtime.producer.send({
      topic: app.runtime.topics.agentActions,
      messages: [{ key: 'schema-bad', value: bad }],
    });
    expect(await reasonOf('schema-bad')).toBe('schema_violation');
  });

  it('keeps consuming after bad messages', async () => {
    const id = await acceptedLead();
    await sendActions(action(id, 'contacted'));
    await eventsOf(id, 3);
  });
});

it('no lead event ever carries money', async () => {
  await until(async () => events.seen.length > 10);
  const forbidden = ['amount', 'currency', 'ftd_amount', 'rtd_amount', 'deposit_amount', '250.00', 'EUR'];
  for (const e of events.values()) {
    const text = JSON.stringify(e);
    for (const word of forbidden) expect(text).not.toContain(word);
  }
});

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LeadDoc } from '../../src/shared/mongo/documents';
import type { AgentAction, LeadAssignment, LeadEvent } from '../../src/shared/schemas';
import { expectOneFeedMessagePerChange, recordedChanges } from '../support/assignment-feed';
import { produce } from '../support/intake-commands';
import { ManagerClient } from '../support/manager-client';
import { opsTools } from '../support/ops-tools';
import { PartnerClient } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe, until } from '../support/topic-probe';
import { readTopicToEnd } from '../support/topic-reader';

// The assignment feed (crm.lead-assignments) on the real servers: leads given to agents at intake,
// a waiting lead assigned once an agent fits, an idle lead handed to another agent, a lead ended by
// its agent and one erased: one message per change of agent, with the routing fields and nothing
// personal, each change's lead event beside it; then read by Confluent's own client through the
// consumer snippet docs/crm.md shows.
const IDLE_S = 4;
const ROOT = join(__dirname, '..', '..');
const SNIPPET = join(ROOT, 'docs', 'crm', 'snippets', 'read_assignments.py');
const RUNNER = join(__dirname, '..', 'support', 'snippet-runners', 'read-assignments.py');
let app: TestApp;
let manager: ManagerClient;
let partner: PartnerClient;
let partnerId: string;
let events: TopicProbe<LeadEvent>;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress,processor', IDLE_REDISTRIBUTION_S: String(IDLE_S) });
  manager = new ManagerClient(app.url);
  const created = (
    await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', { name: 'Feed' })
  ).body;
  partnerId = created.id;
  partner = new PartnerClient(app.url, created);
  events = await new TopicProbe<LeadEvent>(app.runtime, 'leadEvents').start();
});

afterAll(async () => {
  await events?.stop();
  await app?.destroy();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const leadDoc = (id: string) => app.runtime.mongo.collections.leads.findOne({ _id: id }) as Promise<LeadDoc>;
const agent = async (name: string, countries: string[]) =>
  (await manager.post<{ id: string }>('/api/agents', { name, countries, languages: ['de', 'fr'] })).body.id;
const waitLead = (id: string, what: string, ok: (l: LeadDoc) => boolean, ms = 15_000) =>
  until(
    async () => {
      const l = await leadDoc(id);
      return l && ok(l) ? l : null;
    },
    ms,
    what,
  );

async function act(id: string, status: string): Promise<void> {
  const action: AgentAction = { action_id: randomUUID(), lead_id: id, status, occurred_at: new Date().toISOString() };
  await produce(app.runtime, 'agentActions', [action], () => id);
}

// Each lead's personal data, which no feed message may carry.
const people: Record<string, string[]> = {};
async function submit(n: number, country: 'DE' | 'FR'): Promise<string> {
  const p = {
    phone: country === 'DE' ? `+49151123${String(45000 + n)}` : `+336123${String(45000 + n)}`,
    email: `feed.person${n}@example.com`,
    first_name: `Feodora${n}`,
    last_name: `Assignova${n}`,
    ip: `198.51.100.${n}`,
  };
  const res = await partner.submitLead({
    ...p,
    country,
    language: country.toLowerCase(),
    source: 'search',
    funnel: `funnel-${n}`,
    external_id: `feed-${n}`,
  });
  expect(res).toMatchObject({ status: 200, body: { status: 'accepted' } });
  const id = res.body.id as string;
  people[id] = Object.values(p);
  return id;
}

const feedOf = async (id: string) =>
  (await readTopicToEnd<LeadAssignment>(app.runtime, 'leadAssignments')).filter((m) => m.value.lead_id === id);
const reasons = async (id: string) => (await feedOf(id)).map((m) => m.value.reason);

let ids: { worked: string; ended: string; erased: string; waited: string };

it('gives each change of agent one message, from intake to the lead leaving its agent', async () => {
  const de = [await agent('Anna', ['DE']), await agent('Ben', ['DE'])];
  await sleep(1500); // the roster's next refresh
  ids = {
    worked: await submit(1, 'DE'),
    ended: await submit(2, 'DE'),
    erased: await submit(3, 'DE'),
    waited: await submit(4, 'FR'),
  };
  for (const id of [ids.worked, ids.ended, ids.erased])
    await waitLead(id, `${id} assigned at intake`, (l) => l.status === 'assigned');

  // Ended by its agent, and erased, while still with their first agent (well inside the idle time).
  await act(ids.ended, 'trash');
  expect((await manager.send('DELETE', `/api/leads/${ids.erased}/personal-data`)).status).toBe(202);
  await waitLead(ids.ended, 'the trash status', (l) => l.status === 'trash');
  await waitLead(ids.erased, 'the erasure', (l) => l.personal_erased_at !== undefined);

  // Not worked for the idle time: handed to the other agent; then worked, which stops the moves.
  const first = (await leadDoc(ids.worked)).agent_id;
  await waitLead(ids.worked, 'the idle lead to move', (l) => l.agent_id !== first, (IDLE_S + 10) * 1000);
  await act(ids.worked, 'contacted');
  await waitLead(ids.worked, 'the agent action', (l) => l.status === 'contacted');

  // No agent takes French leads yet: it waits, and goes to the first one that does.
  expect(await leadDoc(ids.waited)).toMatchObject({ status: 'new', agent_id: null });
  const fr = await agent('Chloe', ['FR']);
  await waitLead(ids.waited, 'the waiting lead assigned', (l) => l.agent_id === fr);
  await act(ids.waited, 'contacted');
  await waitLead(ids.waited, 'the agent action', (l) => l.status === 'contacted');

  await until(
    async () => (await reasons(ids.waited)).length === 1 && (await reasons(ids.worked)).includes('idle_redistributed'),
    10_000,
    'the feed',
  );
  await sleep((IDLE_S + 2) * 1000); // an idle check of any of them would come by now: none may move them
  const leads = await Promise.all(Object.values(ids).map(leadDoc));
  const report = await expectOneFeedMessagePerChange(app.runtime, leads);
  expect(report.repeats).toBe(0);

  const [worked, ended, erased, waited] = await Promise.all(Object.values(ids).map(feedOf));
  expect(worked!.map((m) => m.value.reason)).toEqual(['intake', 'idle_redistributed']);
  expect(worked![1]!.value).toMatchObject({
    previous_agent_id: first,
    agent_id: de.find((a) => a !== first),
    status: 'assigned',
  });
  expect(ended!.map((m) => [m.value.reason, m.value.agent_id, m.value.status])).toEqual([
    ['intake', expect.any(String), 'assigned'],
    ['terminal', null, 'trash'],
  ]);
  expect(ended![1]!.value.previous_agent_id).toBe(ended![0]!.value.agent_id);
  expect(erased!.map((m) => [m.value.reason, m.value.agent_id, m.value.status])).toEqual([
    ['intake', expect.any(String), 'assigned'],
    ['erased', null, 'assigned'],
  ]);
  expect(waited!.map((m) => m.value)).toEqual([
    expect.objectContaining({ reason: 'waiting_assigned', agent_id: fr, previous_agent_id: null }),
  ]);

  for (const [i, lead] of leads.entries()) {
    const msgs = [worked, ended, erased, waited][i]!;
    expect(msgs.map((m) => m.value.event_id)).toEqual(recordedChanges(lead).map((c) => c.event_id)); // in order: one key, one partition
    for (const m of msgs) {
      expect(m.key).toBe(lead._id);
      expect(m.value).toMatchObject({
        lead_id: lead._id,
        partner_id: partnerId,
        external_lead_id: lead.external_id,
        country_code: lead.country_code,
        language: lead.language,
        source: 'search',
        funnel: lead.funnel,
        created_at: lead.created_at.toISOString(),
      });
      const text = m.raw.toString('utf8');
      expect(people[lead._id]!.filter((p) => text.includes(p) || text.includes(p.replace('+', '')))).toEqual([]);
      // A change the partner hears of has its lead event under the same id, published with it.
      const entry = lead.history[Number(m.value.event_id.split(':')[1])]!;
      if (entry.event !== null) expect(events.values().map((e) => e.event_id)).toContain(m.value.event_id);
    }
  }
}, 90_000);

it("is read by Confluent's own client through the consumer docs/crm.md shows, once per change", async () => {
  expect(readFileSync(join(ROOT, 'docs', 'crm.md'), 'utf8')).toContain(readFileSync(SNIPPET, 'utf8'));
  const ours = (await readTopicToEnd<LeadAssignment>(app.runtime, 'leadAssignments')).filter((m) =>
    Object.values(ids).includes(m.value.lead_id),
  );
  const { kafka, schemaRegistryUrl } = app.runtime.config;
  const lines = await runPython(opsTools().CONFLUENT_PYTHON_BIN, [
    RUNNER,
    kafka.brokers.join(','),
    schemaRegistryUrl,
    app.runtime.topics.leadAssignments,
    `crm-${randomUUID()}`,
    String(new Set(ours.map((m) => m.value.event_id)).size),
    '30',
  ]);
  const read = lines.map((l) => JSON.parse(l) as LeadAssignment).filter((a) => Object.values(ids).includes(a.lead_id));
  const byLead = (list: LeadAssignment[]) =>
    Object.fromEntries(Object.values(ids).map((id) => [id, list.filter((a) => a.lead_id === id)]));
  expect(byLead(read)).toEqual(byLead(ours.map((m) => m.value)));
}, 60_000);

function runPython(bin: string, args: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', (e) => reject(new Error(`${bin} could not run: ${e.message}`)));
    child.on('close', (code) =>
      code === 0
        ? resolve(
            out
              .trim()
              .split('\n')
              .filter((l) => l !== ''),
          )
        : reject(new Error(`${bin} exited ${code}: ${err}`)),
    );
  });
}

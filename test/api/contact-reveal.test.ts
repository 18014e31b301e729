import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { startApp, type App } from '../../src/app';
import type { LeadContact as Contact } from '../../src/manager/contact/lead-contact';
import type { Config } from '../../src/shared/config';
import { REDACT_PATHS } from '../../src/shared/logger';
import type { LeadDoc } from '../../src/shared/mongo/documents';
import type { AgentAction } from '../../src/shared/schemas';
import { produce } from '../support/intake-commands';
import { ManagerClient } from '../support/manager-client';
import { roleToken } from '../support/manager-data';
import { PartnerClient } from '../support/partner-client';
import { enrol, invite, type SessionClient } from '../support/session-client';
import { dropTestData } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { until } from '../support/topic-probe';

// Contact reveal on the real servers, leads through the real pipeline (partner API, processor,
// distribution): who gets a lead's phone and email, who gets 404 or 403, after a reassignment, a
// terminal outcome and an erasure, the per-agent quota, and what the audit log and the log keep.
const QUOTA = 6;
let config: Config;
let app: App;
const logLines: string[] = [];
let owner: ManagerClient;
let partner: PartnerClient;
let crm: ManagerClient;
const people: Record<string, SessionClient> = {};
const agents: Record<string, string> = {};
const accountIds: Record<string, string> = {};
const sent: { phone: string; email: string; name: string }[] = [];

type ErrorBody = { error: string; message: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const leadDoc = (id: string) => app.runtime.mongo.collections.leads.findOne({ _id: id }) as Promise<LeadDoc>;
const contactPath = (leadId: string, agentId?: string) =>
  `/api/leads/${leadId}/contact${agentId ? `?agent_id=${agentId}` : ''}`;

async function person(name: string, role: 'agent' | 'supervisor', agentId?: string): Promise<void> {
  const invited = await invite(app.url, {
    email: `${name}@example.com`,
    name,
    role,
    ...(agentId && { agent_id: agentId }),
  });
  accountIds[name] = invited.id;
  people[name] = (await enrol(app.url, invited)).client;
}

async function agent(name: string, countries: string[], supervisor: string | null): Promise<string> {
  const res = await owner.post<{ id: string }>('/api/agents', {
    name,
    countries,
    ...(supervisor && { supervisor_id: accountIds[supervisor] }),
  });
  expect(res.status).toBe(201);
  return (agents[name] = res.body.id);
}

// A lead sent by the partner and handed to `agentId` by the processor.
async function assignedLead(country: string, agentId: string, language = 'de'): Promise<string> {
  const n = sent.length + 1;
  const lead = {
    phone: `+49151123${String(40000 + n)}`,
    email: `lead${n}.zebulon@example.com`,
    first_name: 'Quixote',
    last_name: `Axolotl${n}`,
  };
  sent.push({ phone: lead.phone, email: lead.email, name: lead.last_name });
  const res = await partner.submitLead({ ...lead, country, language, external_id: `reveal-${n}` });
  expect(res.body).toMatchObject({ status: 'accepted' });
  const id = res.body.id as string;
  await until(async () => (await leadDoc(id))?.agent_id === agentId, 15_000, `lead ${id} assigned to ${agentId}`);
  return id;
}

beforeAll(async () => {
  config = testConfig({
    ROLE: 'ingress,processor',
    IDLE_REDISTRIBUTION_S: '2',
    CONTACT_REVEALS_PER_HOUR: String(QUOTA),
  });
  // The log at debug level, kept to prove it never holds a contact.
  app = await startApp(
    config,
    pino(
      { level: 'debug', redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
      { write: (line: string) => void logLines.push(line) },
    ),
  );
  owner = new ManagerClient(app.url);
  partner = new PartnerClient(
    app.url,
    (await owner.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', { name: 'Reveals' }))
      .body,
  );
  crm = owner.withToken((await roleToken(app.url, 'agent')).token);
  await person('sue', 'supervisor');
  await person('tom', 'supervisor');
  // Each agent takes its own country, so each lead has exactly one agent that fits.
  await agent('Anna', ['DE'], 'sue');
  await agent('Ben', ['FR'], 'tom');
  await agent('Rita', ['ES'], 'sue');
  await agent('Quinn', ['PT'], null);
  await person('anna', 'agent', agents.Anna);
  await person('ben', 'agent', agents.Ben);
  await person('rita', 'agent', agents.Rita);
  await person('nolink', 'agent');
  await sleep(1200); // the processor's roster refresh (DISTRIBUTION_INTERVAL_MS 500)
}, 120_000);

afterAll(async () => {
  await app?.stop();
  if (config) await dropTestData(config);
});

describe('who gets a contact', () => {
  let lead: string;
  beforeAll(async () => {
    lead = await assignedLead('DE', agents.Anna!);
  }, 30_000);

  it("reveals phone, email, name and language to the lead's agent, its supervisor and a CRM acting for the agent", async () => {
    const expected: Contact = {
      lead_id: lead,
      phone: sent[0]!.phone,
      email: sent[0]!.email,
      full_name: `Quixote ${sent[0]!.name}`,
      language: 'de',
    };
    const mine = await people.anna!.get<Contact>(contactPath(lead));
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual(expected);
    expect(mine.headers.get('cache-control')).toBe('no-store');
    expect((await people.sue!.get<Contact>(contactPath(lead))).body).toEqual(expected);
    expect((await crm.get<Contact>(contactPath(lead, agents.Anna))).body).toEqual(expected);
  });

  it("answers 404 to another agent, another team's supervisor and a CRM naming the wrong agent, exactly as for no lead", async () => {
    const none = await people.ben!.get<ErrorBody>(contactPath('le-999999999'));
    expect(none).toMatchObject({ status: 404, body: { error: 'not_found' } });
    for (const res of [
      await people.ben!.get<ErrorBody>(contactPath(lead)),
      await people.tom!.get<ErrorBody>(contactPath(lead)),
      await crm.get<ErrorBody>(contactPath(lead, agents.Ben)),
    ]) {
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: none.body });
    }
    // A supervisor naming an agent of their own team for another agent's lead learns nothing either.
    expect((await people.sue!.get(contactPath(lead, agents.Rita))).status).toBe(404);
  });

  it("answers 403 to roles without contacts.reveal and to an agent's account linked to no agent, 422 to a CRM naming none", async () => {
    expect((await owner.get<ErrorBody>(contactPath(lead))).body).toMatchObject({ error: 'forbidden' });
    const analyst = owner.withToken((await roleToken(app.url, 'analyst')).token);
    expect(await analyst.get<ErrorBody>(contactPath(lead))).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
    expect(await people.nolink!.get<ErrorBody>(contactPath(lead))).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
    expect(await crm.get<ErrorBody>(contactPath(lead))).toMatchObject({
      status: 422,
      body: { error: 'invalid_request' },
    });
  });
});

it("follows a reassignment: the former agent and a CRM naming it get 404, the new agent's side the contact", async () => {
  const lead = await assignedLead('ES', agents.Rita!, 'es');
  expect((await people.rita!.get(contactPath(lead))).status).toBe(200);
  // Rita goes off duty: the idle lead (IDLE_REDISTRIBUTION_S 2) goes to Rolf, the one agent left for ES.
  const rolf = await agent('Rolf', ['ES'], 'sue');
  expect((await owner.patch(`/api/agents/${agents.Rita}`, { active: false })).status).toBe(200);
  await until(async () => (await leadDoc(lead)).agent_id === rolf, 20_000, 'the idle lead to go to Rolf');

  expect(await people.rita!.get<ErrorBody>(contactPath(lead))).toMatchObject({
    status: 404,
    body: { error: 'not_found' },
  });
  expect((await crm.get(contactPath(lead, agents.Rita))).status).toBe(404);
  expect(await crm.get<Contact>(contactPath(lead, rolf))).toMatchObject({
    status: 200,
    body: { lead_id: lead, language: 'es' },
  });
  expect((await people.sue!.get(contactPath(lead))).status).toBe(200);
}, 60_000);

it('hides a lead that reached a terminal status from its last agent and their supervisor', async () => {
  const lead = await assignedLead('DE', agents.Anna!);
  const action: AgentAction = {
    action_id: randomUUID(),
    lead_id: lead,
    agent_id: agents.Anna!,
    status: 'trash',
    occurred_at: new Date().toISOString(),
  };
  await produce(app.runtime, 'agentActions', [action], () => lead);
  await until(async () => (await leadDoc(lead)).status === 'trash', 15_000, 'the terminal outcome');
  expect((await people.anna!.get(contactPath(lead))).status).toBe(404);
  expect((await people.sue!.get(contactPath(lead))).status).toBe(404);
  expect((await crm.get(contactPath(lead, agents.Anna))).status).toBe(404);
}, 30_000);

it("answers 410 for an erased lead to its agent's side (from the moment its key is destroyed), 404 to others", async () => {
  const lead = await assignedLead('FR', agents.Ben!, 'fr');
  expect((await owner.send('DELETE', `/api/leads/${lead}/personal-data`)).status).toBe(202);
  expect(await people.ben!.get<ErrorBody>(contactPath(lead))).toMatchObject({
    status: 410,
    body: { error: 'personal_data_erased' },
  });
  await until(async () => (await leadDoc(lead)).personal_erased_at, 15_000, 'the erasure to be stored');
  expect(await people.ben!.get<ErrorBody>(contactPath(lead))).toMatchObject({
    status: 410,
    body: { error: 'personal_data_erased' },
  });
  expect((await people.tom!.get(contactPath(lead))).status).toBe(410);
  expect((await crm.get(contactPath(lead, agents.Ben))).status).toBe(410);
  expect((await people.anna!.get(contactPath(lead))).status).toBe(404);
  expect((await people.sue!.get(contactPath(lead))).status).toBe(404);
}, 30_000);

it("refuses past the agent's hourly quota with 429 and Retry-After, counts it, and leaves other agents alone", async () => {
  const lead = await assignedLead('PT', agents.Quinn!, 'pt');
  for (let i = 0; i < QUOTA; i++) expect((await crm.get(contactPath(lead, agents.Quinn))).status).toBe(200);
  const over = await crm.get<ErrorBody>(contactPath(lead, agents.Quinn));
  expect(over).toMatchObject({ status: 429, body: { error: 'reveal_quota_exceeded' } });
  expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(3500);
  expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
  // Refused reveals take no place, and other agents keep theirs.
  expect((await crm.get(contactPath(lead, agents.Quinn))).status).toBe(429);
  const other = await assignedLead('DE', agents.Anna!);
  expect((await people.anna!.get(contactPath(other))).status).toBe(200);

  const metric = await app.runtime.metrics.getSingleMetric('lead_intake_contact_reveals_total')!.get();
  const byOutcome = Object.fromEntries(metric.values.map((v) => [String(v.labels.outcome), v.value]));
  expect(byOutcome).toMatchObject({ quota_exceeded: 2, erased: 4, no_agent: 2 });
  expect(byOutcome.revealed).toBeGreaterThanOrEqual(QUOTA + 6);
  expect(byOutcome.not_found).toBeGreaterThanOrEqual(10);
}, 30_000);

describe('the record', () => {
  type Entry = {
    actor: string;
    action: string;
    affiliate_id: string | null;
    target: string | null;
    details: Record<string, unknown>;
  };

  it('audits every reveal and refusal: who, for which agent, which lead, when; never the contact', async () => {
    const entries: Entry[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: Entry[]; next_cursor: string | null } } = await owner.get(
        `/api/audit-log?action=lead.contact_reveal&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      entries.push(...page.body.items);
      cursor = page.body.next_cursor;
    } while (cursor);
    const first = await app.runtime.mongo.collections.leads.findOne({ external_id: 'reveal-1' });
    const onFirst = entries.filter((e) => e.target === first!._id);
    expect(onFirst).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ actor: accountIds.anna, details: { agent_id: agents.Anna, outcome: 'revealed' } }),
        expect.objectContaining({ actor: accountIds.sue, details: { agent_id: agents.Anna, outcome: 'revealed' } }),
        expect.objectContaining({
          actor: expect.stringMatching(/^sa-/),
          details: { agent_id: agents.Anna, outcome: 'revealed' },
        }),
        expect.objectContaining({
          actor: accountIds.ben,
          details: { agent_id: agents.Ben, outcome: 'not_found', refused: 'not_found', http_status: 404 },
        }),
      ]),
    );
    // A refusal before the lead is read (a role without contacts.reveal) names no partner.
    const partnerOf = (e: Entry) => (e.details.outcome === undefined ? null : first!.partner_id);
    expect(onFirst.every((e) => e.affiliate_id === partnerOf(e) && e.action === 'lead.contact_reveal')).toBe(true);
    const outcomes = new Set(entries.map((e) => e.details.outcome));
    expect([...outcomes].sort()).toEqual(['erased', 'no_agent', 'not_found', 'quota_exceeded', 'revealed']);
    // Nothing of a contact, in the audit log or the log.
    const stored = JSON.stringify(await app.runtime.mongo.collections.audit.find({}).toArray());
    const log = logLines.join('');
    expect(log).toContain('/contact');
    for (const text of [stored, log]) {
      for (const s of sent) {
        expect(text).not.toContain(s.phone.slice(1));
        expect(text).not.toContain(s.email);
        expect(text).not.toContain(s.name);
      }
      expect(text.toLowerCase()).not.toMatch(/zebulon|quixote/);
    }
  });
});

import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { IHeaders } from 'kafkajs';
import { startApp, type App } from '../../src/app';
import { loadConfig } from '../../src/shared/config';
import { createLogger } from '../../src/shared/logger';
import type { AgentAction, Deposit, LeadEvent } from '../../src/shared/schemas';
import { startChildRole, type ChildRole } from '../support/child-role';
import { intakeCommand, produce } from '../support/intake-commands';
import { dropTestData } from '../support/test-app';
import { testEnv } from '../support/test-config';
import { TopicProbe, until, type Seen } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';
import {
  framed,
  goodAction,
  goodDeposit,
  json,
  refusedStatus,
  unknownLead,
  violating,
  type Topic,
} from '../support/fuzz-crm-messages';

// Bad input on the CRM topics: generated messages (fast-check) on crm.agent-actions and crm.deposits
// that the processor (its own OS process, through src/main.ts) cannot apply: random bytes and
// tombstones, a wrong magic byte, schema ids the registry does not know or that belong to another
// topic, the right schema id with bytes that are not JSON or JSON that violates the schema, and
// well-formed messages about unknown leads, moves the status catalogue forbids, or a deposit that
// happened after its lead ended (a deposit on any other lead is a fact and is applied). Every one must end,
// unchanged, on crm.dead-letter with a documented reason (counted one for one); the processor stays
// up and ready, stores nothing, and still applies a good message sent after them.
// FUZZ_RUNS scales the number of messages (default 600 per topic); FUZZ_SEED replays a run.
const PER_TOPIC = Math.round(Number(process.env.FUZZ_RUNS ?? 1800) / 3);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const REASONS = [
  'malformed_message',
  'schema_violation',
  'unknown_lead',
  'unknown_status',
  'illegal_transition',
  'terminal_status',
  'status_needs_deposit',
  'chargeback_before_deposit',
];
// Messages about unknown leads are parked first (their lead may be on its way): 2 s here, not 15 minutes.
const env = testEnv({ CRM_PARK_MAX_MS: '2000' });
const config = loadConfig(env);
let child: ChildRole;
let client: App;
let deadLetters: TopicProbe<Buffer>;
let events: TopicProbe<LeadEvent>;
const realLeads: string[] = [];
let endedLead: string; // a real lead that reached a terminal status before any deposit: none applies to it

beforeAll(async () => {
  client = await startApp({ ...config, roles: [] } as typeof config, createLogger('silent'));
  deadLetters = await new TopicProbe<Buffer>(client.runtime, 'crmDeadLetter', true).start();
  events = await new TopicProbe<LeadEvent>(client.runtime, 'leadEvents').start();
  child = await startChildRole('processor', env);
  // A few real leads (no agent, so they stay `new`): a forbidden move on them must be refused too.
  const partner = (await servicesOf(client.runtime).partners.create({ name: 'CRM fuzz' })).partner.id;
  const commands = Array.from({ length: 4 }, (_, i) =>
    intakeCommand(client.runtime, partner, { phone: `+4479114${String(10000 + i)}` }),
  );
  await produce(client.runtime, 'intakeCommands', commands);
  const leads = await until(
    async () => {
      const found = await client.runtime.mongo.collections.leads.find({}).toArray();
      return found.length === commands.length ? found : null;
    },
    30_000,
    'the real leads',
  );
  realLeads.push(...leads.map((l) => l._id));
  endedLead = realLeads[realLeads.length - 1]!;
  // Ended before any generated deposit happened (they date from 2000 on): none of them may make it a client.
  const trash: AgentAction = {
    action_id: randomUUID(),
    lead_id: endedLead,
    status: 'trash',
    occurred_at: '1999-12-31T00:00:00.000Z',
  };
  await produce(client.runtime, 'agentActions', [trash], () => trash.lead_id);
  await events.waitFor(
    (es) => es.some((e) => e.lead_id === endedLead && e.our_status === 'trash'),
    30_000,
    'the ended lead',
  );
}, 120_000);

afterAll(async () => {
  await Promise.all([deadLetters?.stop(), events?.stop()]);
  await child?.kill();
  await client?.stop();
  await dropTestData(config);
});

function crmMessage(topic: Topic, ids: Record<Topic | 'leadEvents', number>): fc.Arbitrary<Buffer | null> {
  const own = ids[topic];
  const other = topic === 'agentActions' ? ids.deposits : ids.agentActions;
  const real = fc.constantFrom(...realLeads);
  const good: fc.Arbitrary<Record<string, unknown>> =
    topic === 'agentActions'
      ? goodAction(fc.oneof(unknownLead, real), fc.constantFrom('contacted', 'trash'))
      : goodDeposit(fc.oneof(unknownLead, real));
  return fc.oneof(
    fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)), // random bytes
    fc.constant(null), // a tombstone
    fc.tuple(fc.integer({ min: 1, max: 255 }), good).map(([magic, m]) => framed(own, json(m), magic)), // wrong magic byte
    fc.tuple(fc.integer({ min: 2 ** 30, max: 2 ** 31 - 1 }), good).map(([id, m]) => framed(id, json(m))), // unknown schema id
    fc.tuple(fc.integer({ min: -(2 ** 31), max: -1 }), good).map(([id, m]) => framed(id, json(m))), // negative schema id
    good.map((m) => framed(other, json(m))), // another topic's schema
    fc.constantFrom(ids.leadEvents).map((id) => framed(id, json({ event_id: 'le-1:0', event: 'lead.accepted' }))),
    fc.uint8Array({ maxLength: 100 }).map((a) => framed(own, Buffer.from(a))), // right id, not JSON
    fc.json({ maxDepth: 2 }).map((j) => framed(own, Buffer.from(j))), // right id, any JSON
    violating(good).map((m) => framed(own, json(m))), // right id, schema-violating JSON
    (topic === 'agentActions'
      ? goodAction(unknownLead, fc.constantFrom('contacted', 'trash'))
      : goodDeposit(unknownLead)
    ).map((m) => framed(own, json(m))), // valid, unknown lead
    (topic === 'agentActions' ? goodAction(real, refusedStatus) : goodDeposit(fc.constant(endedLead))).map((m) =>
      framed(own, json(m)),
    ), // a forbidden move
  );
}

it('sends every malformed or inapplicable CRM message to the dead-letter topic, unchanged, and keeps going', async () => {
  const rt = client.runtime;
  const schemaId = async (topic: Topic | 'leadEvents', sample: object) =>
    (await rt.codec.encode(topic, sample)).readInt32BE(1);
  const ids = {
    agentActions: await schemaId('agentActions', {
      action_id: 'a',
      lead_id: 'le-1',
      status: 'contacted',
      occurred_at: new Date().toISOString(),
    }),
    deposits: await schemaId('deposits', {
      deposit_id: 'd',
      lead_id: 'le-1',
      type: 'deposit',
      amount: '1.00',
      currency: 'EUR',
      occurred_at: new Date().toISOString(),
    }),
    leadEvents: await schemaId('leadEvents', {
      event_id: 'le-1:0',
      event: 'lead.accepted',
      lead_id: 'le-1',
      partner_id: 'pa-1',
      external_lead_id: 'x',
      our_status: 'new',
      is_depositor: false,
      occurred_at: new Date().toISOString(),
    }),
  };
  const sent = new Map<string, { topic: string; value: Buffer | null }>();
  for (const topic of ['agentActions', 'deposits'] as const) {
    const values = fc.sample(crmMessage(topic, ids), { numRuns: PER_TOPIC, seed: SEED });
    for (let i = 0; i < values.length; i += 200) {
      const messages = values.slice(i, i + 200).map((value, j) => ({ key: `fz-${topic}-${i + j}`, value }));
      for (const m of messages) sent.set(m.key, { topic: rt.topics[topic], value: m.value });
      await rt.producer.send({ topic: rt.topics[topic], messages });
    }
  }

  const sentAt = Date.now();
  const header = (h: IHeaders, name: string) => h[name]?.toString();
  const sourceOf = (d: Seen<Buffer>) =>
    ['x-source-topic', 'x-source-partition', 'x-source-offset'].map((n) => header(d.headers, n)).join(':');
  // Kafka topics are at least once: a batch redelivered (a rebalance of the processor or of this
  // probe) repeats its dead letters. A repeat names the same source offset and carries the same bytes,
  // so readers drop it by that; one for one means one per source message, none lost.
  const unique = () => {
    const bySource = new Map<string, Seen<Buffer>>();
    for (const d of deadLetters.seen) {
      const first = bySource.get(sourceOf(d));
      if (!first) bySource.set(sourceOf(d), d);
      else expect([d.key, d.value]).toEqual([first.key, first.value]);
    }
    return [...bySource.values()];
  };
  const got = await until(
    async () => {
      const u = unique();
      return u.length >= sent.size ? u : null;
    },
    60_000,
    `${sent.size} dead letters (seed ${SEED})`,
  );
  const deadLetteredMs = Date.now() - sentAt;
  expect(got).toHaveLength(sent.size);
  const wrong = got.filter((d) => {
    const original = sent.get(d.key ?? '');
    return (
      !original ||
      !REASONS.includes(header(d.headers, 'x-dead-letter-reason') ?? '') ||
      header(d.headers, 'x-source-topic') !== original.topic ||
      !(original.value === null ? d.value === null : Buffer.isBuffer(d.value) && original.value.equals(d.value))
    );
  });
  expect(
    wrong.map((d) => ({
      key: d.key,
      headers: Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k, String(v)])),
    })),
  ).toEqual([]);
  expect(new Set(got.map((d) => d.key)).size).toBe(sent.size);

  // Nothing stored or changed: the real leads are as they were (new, and the ended one trash), no money kept.
  const { leads, deposits, clients } = rt.mongo.collections;
  const stateOf = new Map((await leads.find({}).toArray()).map((l) => [l._id, [l.status, l.history.length]]));
  expect(realLeads.map((id) => stateOf.get(id))).toEqual(
    realLeads.map((id) => (id === endedLead ? ['trash', 2] : ['new', 1])),
  );
  expect(await deposits.countDocuments({})).toBe(0);
  expect(await clients.countDocuments({})).toBe(0);

  // Alive, ready, and not stuck: a good message after all that is applied.
  expect(child.process.exitCode).toBeNull();
  expect((await fetch(`${child.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${child.url}/readyz`)).status).toBe(200);
  const action: AgentAction = {
    action_id: randomUUID(),
    lead_id: realLeads[0]!,
    status: 'contacted',
    occurred_at: new Date().toISOString(),
  };
  await produce(rt, 'agentActions', [action], () => action.lead_id);
  await events.waitFor(
    (es) => es.some((e) => e.lead_id === action.lead_id && e.our_status === 'contacted'),
    30_000,
    'the good action applied',
  );
  const deposit: Deposit = {
    deposit_id: randomUUID(),
    lead_id: action.lead_id,
    type: 'deposit',
    amount: '10.00',
    currency: 'EUR',
    occurred_at: new Date().toISOString(),
  };
  await produce(rt, 'deposits', [deposit], () => deposit.lead_id);
  await events.waitFor(
    (es) => es.some((e) => e.lead_id === action.lead_id && e.event === 'lead.ftd'),
    30_000,
    'the good deposit applied',
  );
  if (process.env.DRILL_REPORT) {
    const reasons: Record<string, number> = {};
    for (const d of got)
      reasons[header(d.headers, 'x-dead-letter-reason')!] =
        (reasons[header(d.headers, 'x-dead-letter-reason')!] ?? 0) + 1;
    process.stderr.write(
      `crm fuzz (seed ${SEED}): ${sent.size} messages dead-lettered in ${deadLetteredMs} ms, by reason ${JSON.stringify(reasons)}\n`,
    );
  }
}, 150_000);

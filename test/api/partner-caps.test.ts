import { randomUUID } from 'node:crypto';
import { CapGate } from '../../src/processor/cap-gate';
import { capCounters } from '../../src/processor/caps';
import type { IntakeCommand, IntakeReply, LeadEvent } from '../../src/shared/schemas';
import { byPhone, intakeCommand, produce } from '../support/intake-commands';
import { ManagerClient } from '../support/manager-client';
import { PartnerClient, type HttpResult } from '../support/partner-client';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { TopicProbe, until } from '../support/topic-probe';

// Partner caps on the real servers, with two instances that each run an ingress and a processor
// over the same topics, database and Redis: leads of one partner reach both ingresses and every
// intake partition, and the caps still hold exactly.
let first: TestApp;
let second: TestApp;
let manager: ManagerClient;
let events: TopicProbe<LeadEvent>;
let replies: TopicProbe<IntakeReply>;
let phoneSeq = 0;
const phone = () => `+4917612${String(300000 + ++phoneSeq)}`;

beforeAll(async () => {
  const config = testConfig({ ROLE: 'ingress,processor' });
  first = await startTestApp({}, config);
  second = await startTestApp({}, config);
  manager = new ManagerClient(first.url);
  events = await new TopicProbe<LeadEvent>(first.runtime, 'leadEvents').start();
  replies = await new TopicProbe<IntakeReply>(first.runtime, 'intakeReplies').start();
});

afterAll(async () => {
  await events?.stop();
  await replies?.stop();
  await second?.stop();
  await first?.destroy();
});

// A zone whose clock hour does not turn within the next few minutes: hourly caps are counted per
// local hour, and a new hour in the middle of a test would start a fresh counter.
function quietZone(): string {
  const minute = new Date().getUTCMinutes();
  return minute >= 50 || minute < 5 ? 'Asia/Kolkata' : 'UTC';
}

async function partnerWith(settings: Record<string, unknown>): Promise<{ id: string; clients: PartnerClient[] }> {
  const res = await manager.post<{ id: string; api_key: string; hmac_secret: string }>('/api/affiliates', {
    name: `Capped ${randomUUID().slice(0, 6)}`,
    rate_limits: { intake_per_minute: 100000 },
    ...settings,
  });
  expect(res.status).toBe(201);
  return { id: res.body.id, clients: [first, second].map((app) => new PartnerClient(app.url, res.body)) };
}

// As a partner would: the same Idempotency-Key again while the answer is 503 (a processor group
// still settling after the second instance joined).
async function submit(client: PartnerClient, body: Record<string, unknown>, key = randomUUID()): Promise<HttpResult> {
  for (let attempt = 1; ; attempt++) {
    const res = await client.submitLead(body, { idempotencyKey: key });
    const busy = res.status === 503 || res.body.error === 'idempotency_key_in_use';
    if (!busy || attempt >= 20) return res;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function capRejections(): Promise<number> {
  let total = 0;
  for (const app of [first, second]) {
    const metric = await app.runtime.metrics.getSingleMetric('lead_intake_cap_rejections_total')?.get();
    total += (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
  }
  return total;
}

describe('partner caps', () => {
  it('accepts exactly the hourly cap from many connections on two instances, and rejects the rest with cap_reached', async () => {
    const cap = 12;
    const sent = 80;
    const { id, clients } = await partnerWith({ time_zone: quietZone(), caps: { hourly: cap, daily: 1000 } });
    const before = await capRejections();
    const bodies = Array.from({ length: sent }, (_, i) => ({ phone: phone(), external_id: `burst-${i}` }));
    const answers: { key: string; body: Record<string, unknown>; res: HttpResult }[] = [];
    const connections = 16;
    await Promise.all(
      Array.from({ length: connections }, async (_, c) => {
        for (let i = c; i < sent; i += connections) {
          const key = randomUUID();
          const body = bodies[i] as Record<string, unknown>;
          answers.push({ key, body, res: await submit(clients[c % 2] as PartnerClient, body, key) });
        }
      }),
    );

    const accepted = answers.filter((a) => a.res.status === 200);
    const rejected = answers.filter((a) => a.res.status === 422);
    expect(accepted).toHaveLength(cap);
    expect(rejected).toHaveLength(sent - cap);
    for (const { res } of rejected)
      expect(res.body).toEqual({ id: null, status: 'rejected', reason: 'cap_reached:partner_hourly' });

    // Every rejection is a stored lead that announces lead.rejected with its reason, and is counted.
    const rejectedLeads = await first.runtime.mongo.collections.leads
      .find({ partner_id: id, status: 'rejected' })
      .toArray();
    expect(rejectedLeads).toHaveLength(sent - cap);
    const ids = new Set(rejectedLeads.map((l) => l._id));
    await events.waitFor(
      (es) =>
        es.filter((e) => ids.has(e.lead_id) && e.event === 'lead.rejected' && e.reason === 'cap_reached:partner_hourly')
          .length === ids.size,
      20000,
      'lead.rejected for every capped lead',
    );
    // Counted once the chunk's decisions are stored, just after the answers went out.
    await until(async () => (await capRejections()) >= before + sent - cap, 5000, 'the cap rejections to be counted');
    expect(await capRejections()).toBe(before + sent - cap);

    // A repeated request gets the same answer and counts nothing: one more new lead is still refused.
    const again = accepted[0]!;
    const replay = await clients[1]!.submitLead(again.body, { idempotencyKey: again.key });
    expect(replay).toMatchObject({ status: 200, body: { id: again.res.body.id, status: 'accepted', replay: true } });
    const refusedAgain = rejected[0]!;
    expect(await clients[0]!.submitLead(refusedAgain.body, { idempotencyKey: refusedAgain.key })).toMatchObject({
      status: 422,
      body: { status: 'rejected', reason: 'cap_reached:partner_hourly', replay: true },
    });
    expect(await first.runtime.mongo.collections.leads.countDocuments({ partner_id: id, status: 'new' })).toBe(cap);

    // A duplicate is decided before the caps: 409, not a cap rejection.
    const dup = await submit(clients[0]!, { phone: again.body.phone, external_id: 'burst-dup' });
    expect(dup.status).toBe(409);
  }, 120000);

  it('caps a country on top of the partner, and a capped lead holds no dedup claim once the cap is raised', async () => {
    const { id, clients } = await partnerWith({
      time_zone: 'Europe/Berlin',
      caps: { daily: 100, countries: { DE: { daily: 2 } } },
    });
    const de = [phone(), phone(), phone()];
    const outcomes = [];
    for (const p of de) outcomes.push(await submit(clients[0]!, { phone: p, country: 'DE' }));
    expect(outcomes.map((o) => o.status)).toEqual([200, 200, 422]);
    expect(outcomes[2]!.body).toMatchObject({ reason: 'cap_reached:country_daily' });
    expect((await submit(clients[1]!, { phone: phone(), country: 'FR' })).status).toBe(200);

    const raised = await manager.patch(`/api/affiliates/${id}`, {
      caps: { daily: 100, countries: { DE: { daily: 3 } } },
    });
    expect(raised.status).toBe(200);
    // The refused lead gave its phone claim back: the same phone is a new lead now, not a duplicate.
    const retried = await submit(clients[0]!, { phone: de[2], country: 'DE' });
    expect(retried).toMatchObject({ status: 200, body: { status: 'accepted' } });
  }, 60000);

  it('decides a chunk as if one by one: a lead after a capped one with the same phone is not its duplicate', async () => {
    const full = await partnerWith({ caps: { daily: 0 } });
    const open = await partnerWith({});
    const p = phone();
    const cmds: IntakeCommand[] = [
      intakeCommand(first.runtime, full.id, { phone: p }),
      intakeCommand(first.runtime, open.id, { phone: p }),
    ];
    // One produce request on one partition (same phone): one chunk, in this order.
    await produce(first.runtime, 'intakeCommands', cmds, byPhone(first.runtime));
    const decided = await replies.waitFor(
      (rs) => cmds.every((c) => rs.some((r) => r.correlation_id === c.correlation_id)),
      20000,
      'both replies',
    );
    const decision = (c: IntakeCommand) => decided.find((r) => r.correlation_id === c.correlation_id)?.decision;
    expect(decision(cmds[0]!)).toMatchObject({ outcome: 'rejected', reason: 'cap_reached:partner_daily' });
    expect(decision(cmds[1]!)).toMatchObject({ outcome: 'accepted', reason: null });
  });

  it('counts a command once however often its chunk is decided again, and never past the limit from two connections', async () => {
    const gates = [first, second].map((app) => new CapGate(app.runtime.redis, 60));
    const partner = { _id: `pa-gate-${randomUUID().slice(0, 6)}`, caps: { daily: 5, countries: { DE: { daily: 3 } } } };
    const counters = (cc: string) => capCounters(partner, cc, new Date());
    const owners = Array.from({ length: 12 }, (_, i) => `${partner._id}:key-${i}`);
    // Every command asks twice, through both instances at once, as a redelivered chunk would.
    const verdicts = await Promise.all(
      owners.flatMap((owner, i) =>
        gates.map((gate) => gate.take([{ owner, counters: counters(i % 2 ? 'DE' : 'FR') }])),
      ),
    );
    const byOwner = new Map(owners.map((o, i) => [o, [verdicts[2 * i]?.[0], verdicts[2 * i + 1]?.[0]]]));
    for (const [, [a, b]] of byOwner) expect(a).toBe(b);
    const taken = owners.filter((o) => byOwner.get(o)?.[0] === null);
    expect(taken).toHaveLength(5);
    expect(taken.filter((o) => Number(o.split('-').pop()) % 2 === 1).length).toBeLessThanOrEqual(3);
    const redis = first.runtime.redis;
    expect(Number(await redis.get(counters('FR')[0]!.key))).toBe(5);
    expect(Number(await redis.get(counters('DE')[1]!.key))).toBeLessThanOrEqual(3);
  });

  it('refuses bad cap settings and time zones with 422, changing nothing', async () => {
    const { id } = await partnerWith({ caps: { daily: 5 } });
    for (const body of [
      { time_zone: 'Mars/Olympus' },
      { caps: { daily: -1 } },
      { caps: { countries: { de: { daily: 1 } } } },
      { caps: { weekly: 3 } },
      { caps: { countries: { DE: { monthly: 1 } } } },
    ]) {
      const res = await manager.patch(`/api/affiliates/${id}`, body);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: 'invalid_request' });
    }
    const stored = await manager.get(`/api/affiliates/${id}`);
    expect(stored.body).toMatchObject({ caps: { daily: 5 } });
    expect(stored.body).not.toHaveProperty('time_zone');
  });
});

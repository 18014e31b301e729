import { DedupClaims } from '../../src/processor/dedup-claims';
import type { IntakeCommand, IntakeReply, LeadEvent } from '../../src/shared/schemas';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { dedupHashes, intakeCommand, produce, type LeadInput, sealedWithNewKey } from '../support/intake-commands';
import { decisionOf } from '../support/intake-decision';
import { storedLeadCipher } from '../support/lead-keys';
import { startTestApp, type TestApp } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { TopicProbe } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// The processor's intake decisions, driven through the real inbound topic (the ingress is tested
// on its own): dedup, rules, ids, storage, replay, events.
let app: TestApp;
let replies: TopicProbe<IntakeReply>;
let events: TopicProbe<LeadEvent>;
let partnerA: string;
let partnerB: string;
let phoneSeq = 0;
const phone = () => `+4479111${String(100000 + ++phoneSeq).slice(-5)}`;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'processor', BLOCKED_COUNTRIES: 'KP' });
  replies = await new TopicProbe<IntakeReply>(app.runtime, 'intakeReplies').start();
  events = await new TopicProbe<LeadEvent>(app.runtime, 'leadEvents').start();
  const partners = servicesOf(app.runtime).partners;
  partnerA = (
    await partners.create({ name: 'A', blocked_sources: ['spam-net'], blocked_ip_ranges: ['198.51.100.0/24'] })
  ).partner.id;
  partnerB = (await partners.create({ name: 'B', blocked_countries: ['RU'] })).partner.id;
});

afterAll(async () => {
  await replies?.stop();
  await events?.stop();
  await app?.destroy();
});

const decide = (cmd: IntakeCommand, key?: (cmd: object) => string) => decisionOf(app.runtime, replies, cmd, key);
const claimsNow = () => new DedupClaims(app.runtime.mongo.db).collectionAt(new Date());
const submit = (partner: string, input: LeadInput, key?: string) =>
  decide(intakeCommand(app.runtime, partner, input, key));

describe('acceptance', () => {
  it('accepts a lead, stores it encrypted with hashes and announces lead.accepted', async () => {
    const p = phone();
    const d = await submit(partnerA, {
      phone: p,
      email: 'Ann@Example.com',
      country_code: 'DE',
      external_id: 'ext-accept',
    });
    expect(d).toMatchObject({ outcome: 'accepted', reason: null, replay: false });
    expect(d.lead_id).toMatch(/^le-\d+$/);
    const stored = await app.runtime.mongo.collections.leads.findOne({ _id: d.lead_id! });
    expect(stored).toMatchObject({
      status: 'new',
      partner_id: partnerA,
      external_id: 'ext-accept',
      is_depositor: false,
      client_id: null,
    });
    expect(JSON.stringify(stored)).not.toContain(p);
    expect((await storedLeadCipher(app.runtime, stored!))!.decrypt(stored!.phone_enc!)).toBe(p);
    expect(stored!.history[0]).toMatchObject({ from: null, to: 'new', source: 'intake' });
    const [accepted] = await events.waitFor((es) => es.some((e) => e.lead_id === d.lead_id));
    expect(events.values().find((e) => e.lead_id === d.lead_id)).toEqual({
      event_id: `${d.lead_id}:0`,
      event: 'lead.accepted',
      lead_id: d.lead_id,
      partner_id: partnerA,
      external_lead_id: 'ext-accept',
      our_status: 'new',
      is_depositor: false,
      occurred_at: expect.any(String),
    });
    expect(accepted).toBeDefined();
  });
});

describe('deduplication', () => {
  it('matches on phone across partners and stores nothing new', async () => {
    const p = phone();
    const first = await submit(partnerA, { phone: p });
    const before = await app.runtime.mongo.collections.leads.countDocuments();
    const dup = await submit(partnerB, { phone: p });
    expect(dup).toEqual({
      outcome: 'duplicate',
      lead_id: first.lead_id,
      reason: `matched_lead:${first.lead_id!.slice(3)}`,
      body_hash: expect.any(String),
      replay: false,
    });
    expect(await app.runtime.mongo.collections.leads.countDocuments()).toBe(before);
  });

  it('matches on email with a different phone', async () => {
    const first = await submit(partnerA, { phone: phone(), email: 'dup@example.com' });
    const dup = await submit(partnerA, { phone: phone(), email: 'dup@example.com' });
    expect(dup).toMatchObject({ outcome: 'duplicate', lead_id: first.lead_id });
  });

  it('accepts the same phone again once the first lead is outside the window', async () => {
    const p = phone();
    const first = await submit(partnerA, { phone: p });
    const old = new Date(Date.now() - 31 * 86_400_000);
    await claimsNow().updateMany({ lead_id: first.lead_id! }, { $set: { claimed_at: old } });
    const again = await submit(partnerB, { phone: p });
    expect(again.outcome).toBe('accepted');
    expect(again.lead_id).not.toBe(first.lead_id);
  });

  it('keeps a match inside the window (29 days)', async () => {
    const p = phone();
    const first = await submit(partnerA, { phone: p });
    await claimsNow().updateMany(
      { lead_id: first.lead_id! },
      { $set: { claimed_at: new Date(Date.now() - 29 * 86_400_000) } },
    );
    expect(await submit(partnerB, { phone: p })).toMatchObject({ outcome: 'duplicate', lead_id: first.lead_id });
  });

  it('50 concurrent submissions of one phone from two partners give exactly one accepted lead', async () => {
    const p = phone();
    const cmds = Array.from({ length: 50 }, (_, i) =>
      intakeCommand(app.runtime, i % 2 ? partnerA : partnerB, { phone: p }),
    );
    // Spread over every partition, so several consumers race for the claim.
    await produce(app.runtime, 'intakeCommands', cmds, (_v, i) => `k${i}`);
    const ids = new Set(cmds.map((c) => c.correlation_id));
    const rs = (
      await replies.waitFor((all) => all.filter((r) => ids.has(r.correlation_id)).length === 50, 30000)
    ).filter((r) => ids.has(r.correlation_id));
    const accepted = rs.filter((r) => r.decision.outcome === 'accepted');
    expect(accepted).toHaveLength(1);
    expect(new Set(rs.filter((r) => r.decision.outcome === 'duplicate').map((r) => r.decision.lead_id))).toEqual(
      new Set([accepted[0]!.decision.lead_id]),
    );
    const hash = dedupHashes(app.runtime, cmds[0]!).phone_hash;
    expect(await app.runtime.mongo.collections.leads.countDocuments({ phone_hash: hash })).toBe(1);
  });
});

describe('business rules', () => {
  it.each([
    [
      'a globally blocked country',
      () => submit(partnerA, { phone: phone(), country_code: 'KP' }),
      'country_blocked:KP',
    ],
    [
      "the partner's blocked country",
      () => submit(partnerB, { phone: phone(), country_code: 'RU' }),
      'country_blocked:RU',
    ],
    ['a blocked source', () => submit(partnerA, { phone: phone(), source: 'spam-net' }), 'source_blocked'],
    ['a blocked IP range', () => submit(partnerA, { phone: phone(), ip: '198.51.100.7' }), 'ip_blocked'],
  ])('rejects %s and announces lead.rejected with the reason', async (_name, run, reason) => {
    const d = await run();
    expect(d).toMatchObject({ outcome: 'rejected', reason });
    await events.waitFor((es) => es.some((e) => e.lead_id === d.lead_id));
    expect(events.values().filter((e) => e.lead_id === d.lead_id)).toEqual([
      expect.objectContaining({ event: 'lead.rejected', our_status: 'rejected', reason, is_depositor: false }),
    ]);
  });

  it('a rejected lead does not block the same phone later', async () => {
    const p = phone();
    expect((await submit(partnerA, { phone: p, country_code: 'KP' })).outcome).toBe('rejected');
    expect((await submit(partnerA, { phone: p, country_code: 'DE' })).outcome).toBe('accepted');
  });
});

describe('data keys the commands refer to', () => {
  it('opens a command by its stored key, and leaves one whose key is gone undecided without holding the partition', async () => {
    const sealedWith = async (p: string, keep: boolean, external = `ref-${p}`): Promise<IntakeCommand> => {
      const { record, key } = sealedWithNewKey(
        { phone: p, external_id: external, ip: '203.0.113.10' },
        app.runtime.cipher,
        app.config.crypto.hashKey,
        new Date(),
      );
      if (keep) await new IntakeKeyStore(app.runtime.mongo.db).putAll([key]);
      const cmd = intakeCommand(app.runtime, partnerA, { phone: p });
      return { ...cmd, lead: record };
    };
    const p = phone();
    const lost = await sealedWith(p, false); // its key's hour was dropped while it waited
    const kept = await sealedWith(phone(), true);
    await produce(app.runtime, 'intakeCommands', [lost, kept], () => 'one-partition');
    // The partner's retry of the lost one, on the same partition behind it, is decided: nothing held.
    const decided = await decide(await sealedWith(p, true, `retry-${p}`), () => 'one-partition');
    expect(decided).toMatchObject({ outcome: 'accepted' });
    const [reply] = (await replies.waitFor((rs) => rs.some((r) => r.correlation_id === kept.correlation_id))).filter(
      (r) => r.correlation_id === kept.correlation_id,
    );
    expect(reply!.decision).toMatchObject({ outcome: 'accepted' });
    const stored = (await app.runtime.mongo.collections.leads.findOne({ _id: reply!.decision.lead_id! }))!;
    expect((await storedLeadCipher(app.runtime, stored))!.decrypt(stored.phone_enc!)).toMatch(/^\+44/);
    expect(replies.values().some((r) => r.correlation_id === lost.correlation_id)).toBe(false);
    expect(
      await app.runtime.mongo.collections.leadRefs.findOne({ _id: `${partnerA}:${lost.lead.external_id}` }),
    ).toBeNull();
  });
});

describe('idempotency and redelivery', () => {
  it('a re-sent command gets the stored decision as a replay, with no second lead or event', async () => {
    const cmd = intakeCommand(app.runtime, partnerA, { phone: phone() });
    const first = await decide(cmd);
    const again = await decide({ ...cmd, correlation_id: `${cmd.correlation_id}-2` });
    expect(again).toEqual({ ...first, replay: true });
    await new Promise((r) => setTimeout(r, 500));
    expect(events.values().filter((e) => e.lead_id === first.lead_id && e.event === 'lead.accepted')).toHaveLength(1);
    expect(await app.runtime.mongo.collections.leads.countDocuments({ idempotency_key: cmd.idempotency_key })).toBe(1);
  });

  it('the same key with another body is an idempotency mismatch', async () => {
    const cmd = intakeCommand(app.runtime, partnerA, { phone: phone() });
    await decide(cmd);
    expect(
      await decide({ ...cmd, correlation_id: `${cmd.correlation_id}-x`, body_hash: 'f'.repeat(64) }),
    ).toMatchObject({ outcome: 'idempotency_mismatch', lead_id: null });
  });

  it('a second external_id of the same partner is refused as a duplicate of the first lead', async () => {
    const first = await submit(partnerA, { phone: phone(), external_id: 'ext-twice' });
    const second = await submit(partnerA, { phone: phone(), external_id: 'ext-twice' });
    expect(second).toMatchObject({
      outcome: 'duplicate',
      lead_id: first.lead_id,
      reason: `external_id_taken:${first.lead_id!.slice(3)}`,
    });
  });
});

describe('a command the processor fails on', () => {
  it('goes to the intake dead-letter topic with its reason, gets a failed reply, and does not block its partition', async () => {
    const dead = await new TopicProbe<Buffer>(app.runtime, 'intakeDeadLetter', true).start();
    try {
      // A partner document the processor cannot read (written around the manager API's validation).
      const broken = (await servicesOf(app.runtime).partners.create({ name: 'Broken' })).partner.id;
      await app.runtime.mongo.collections.partners.updateOne(
        { _id: broken },
        { $set: { blocked_sources: 5 as unknown as string[] } },
      );
      const p = phone();
      const cmds = [
        intakeCommand(app.runtime, partnerA, { phone: phone() }),
        intakeCommand(app.runtime, broken, { phone: p }),
        intakeCommand(app.runtime, partnerA, { phone: phone() }),
      ];
      await produce(app.runtime, 'intakeCommands', cmds, () => 'one-partition');
      const ids = new Set(cmds.map((c) => c.correlation_id));
      const rs = (
        await replies.waitFor((all) => all.filter((r) => ids.has(r.correlation_id)).length === 3, 30000)
      ).filter((r) => ids.has(r.correlation_id));
      const outcome = (c: IntakeCommand) => rs.find((r) => r.correlation_id === c.correlation_id)!.decision;
      expect([cmds[0]!, cmds[2]!].map((c) => outcome(c).outcome)).toEqual(['accepted', 'accepted']);
      expect(outcome(cmds[1]!)).toMatchObject({ outcome: 'failed', lead_id: null, reason: 'processing_failed' });
      const [letter] = await dead.waitFor((d) => d.length > 0, 15000, 'the dead letter');
      expect(dead.seen[0]!.headers['x-dead-letter-reason']?.toString()).toBe('processing_failed');
      expect(dead.seen[0]!.headers['x-dead-letter-detail']?.toString()).toMatch(/TypeError/);
      expect((await app.runtime.codec.decode<IntakeCommand>('intakeCommands', letter as Buffer)).correlation_id).toBe(
        cmds[1]!.correlation_id,
      );
      // Nothing of it stored: no lead, no claim held.
      expect(await app.runtime.mongo.collections.leads.countDocuments({ partner_id: broken })).toBe(0);
      expect(await claimsNow().countDocuments({ owner: `${broken}:${cmds[1]!.idempotency_key}` })).toBe(0);
    } finally {
      await dead.stop();
    }
  });
});

describe('ids across processor instances', () => {
  it('two processors allocate unique lead ids', async () => {
    const second = await startTestApp({}, { ...app.config, roles: ['processor'] } as typeof app.config);
    try {
      const cmds = Array.from({ length: 60 }, () => intakeCommand(app.runtime, partnerA, { phone: phone() }));
      await produce(app.runtime, 'intakeCommands', cmds, (_v, i) => `spread-${i}`);
      const ids = new Set(cmds.map((c) => c.correlation_id));
      const rs = (
        await replies.waitFor((all) => all.filter((r) => ids.has(r.correlation_id)).length === 60, 30000)
      ).filter((r) => ids.has(r.correlation_id));
      const leadIds = rs.map((r) => r.decision.lead_id);
      expect(rs.every((r) => r.decision.outcome === 'accepted')).toBe(true);
      expect(new Set(leadIds).size).toBe(60);
    } finally {
      await second.stop();
    }
  });
});

it('testConfig gives every file its own namespaces', () => {
  const other = testConfig();
  expect(other.kafka.topicPrefix).not.toBe(app.config.kafka.topicPrefix);
  expect(other.mongo.db).not.toBe(app.config.mongo.db);
});

import { startApp, type App } from '../../src/app';
import { createLogger } from '../../src/shared/logger';
import { leadId } from '../../src/shared/ids';
import { DedupClaims } from '../../src/processor/dedup-claims';
import type { IntakeCommand, IntakeReply } from '../../src/shared/schemas';
import { decisionId } from '../../src/shared/store/intake-decisions';
import { LeadKeyStore } from '../../src/shared/store/lead-keys';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { leadRefId } from '../../src/shared/store/lead-refs';
import { byPhone, dedupHashes, intakeCommand, produce } from '../support/intake-commands';
import { dropTestData } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { TopicProbe } from '../support/topic-probe';
import { servicesOf } from '../support/manager-services';

// A chunk decided again (after a crash between its claims and its leads, or a failed publish) is
// decided from its own facts, even when a manager edited the rules in between: a command keeps the
// lead id its first decision claimed under, and the claims it leaves name exactly the lead that
// exists. What a first decision leaves is written here as it would be, then the rule is edited and
// the same command comes again.
const config = testConfig({ ROLE: 'processor' });
let app: App;
let replies: TopicProbe<IntakeReply>;
let claims: DedupClaims;
let partnerId: string;
let seq = 0;

beforeAll(async () => {
  app = await startApp(config, createLogger('silent'));
  replies = await new TopicProbe<IntakeReply>(app.runtime, 'intakeReplies').start();
  claims = new DedupClaims(app.runtime.mongo.db);
  partnerId = (await servicesOf(app.runtime).partners.create({ name: 'Rules change' })).partner.id;
});

afterAll(async () => {
  await replies?.stop();
  await app?.stop();
  await dropTestData(config);
});

const keysOf = (cmd: IntakeCommand) => ({
  phone: `g:phone:${dedupHashes(app.runtime, cmd).phone_hash}`,
  email: `g:email:${dedupHashes(app.runtime, cmd).email_hash}`,
  ref: leadRefId(cmd.partner_id, cmd.lead.external_id),
});

async function decide(cmd: IntakeCommand): Promise<IntakeReply> {
  await produce(app.runtime, 'intakeCommands', [cmd], byPhone(app.runtime));
  const got = await replies.waitFor(
    (rs) => rs.some((r) => r.correlation_id === cmd.correlation_id),
    30_000,
    'the decision',
  );
  return got.find((r) => r.correlation_id === cmd.correlation_id) as IntakeReply;
}

// What a first decision left of `cmd` under lead `id`, at `at`: its ref always, its dedup claims when
// it was accepted, and the lead's data key when it got that far.
async function leftBehind(
  cmd: IntakeCommand,
  id: string,
  accepted: boolean,
  at = new Date(),
  key = false,
): Promise<void> {
  const owner = decisionId(cmd.partner_id, cmd.idempotency_key);
  const k = keysOf(cmd);
  await app.runtime.mongo.collections.leadRefs.insertOne({ _id: k.ref, lead_id: id, owner, created_at: at });
  if (accepted)
    await claims.insertNew(
      [k.phone, k.email].map((_id) => ({ _id, lead_id: id, owner, claimed_at: at })),
      at,
    );
  if (key)
    await new LeadKeyStore(app.runtime.mongo.db, new IntakeKeyStore(app.runtime.mongo.db)).insertNew([
      { _id: id, dek_enc: cmd.lead.dek_enc as string, created_at: at },
    ]);
}

const newCommand = () => {
  seq++;
  return intakeCommand(app.runtime, partnerId, {
    phone: `+4479115${String(10000 + seq)}`,
    email: `redecide-${seq}@example.com`,
    country_code: 'DE',
  });
};

it('a command rejected by a rule since lifted keeps its lead id, and its claims name that lead', async () => {
  const cmd = newCommand();
  const first = leadId(900_000 + seq);
  await leftBehind(cmd, first, false);
  const reply = await decide(cmd);
  expect(reply.decision).toMatchObject({ outcome: 'accepted', lead_id: first });
  const k = keysOf(cmd);
  const held = await claims.byIds([k.phone, k.email], new Date());
  expect([...held.values()].map((c) => c.lead_id)).toEqual([first, first]);
  expect(await app.runtime.mongo.collections.leads.countDocuments({ _id: first })).toBe(1);
  expect(await app.runtime.mongo.collections.leadRefs.findOne({ _id: k.ref })).toMatchObject({ lead_id: first });
});

it('a command accepted under a rule since tightened is rejected now and gives its claims back', async () => {
  const cmd = newCommand();
  const first = leadId(900_000 + seq);
  await leftBehind(cmd, first, true);
  await servicesOf(app.runtime).partners.update(partnerId, { blocked_countries: ['DE'] });
  try {
    const reply = await decide(cmd);
    expect(reply.decision).toMatchObject({ outcome: 'rejected', lead_id: first, reason: 'country_blocked:DE' });
    const k = keysOf(cmd);
    expect([...(await claims.byIds([k.phone, k.email], new Date())).keys()]).toEqual([]);
    expect(await app.runtime.mongo.collections.leads.findOne({ _id: first })).toMatchObject({ status: 'rejected' });
  } finally {
    await servicesOf(app.runtime).partners.update(partnerId, { blocked_countries: [] });
  }
  // The same phone and email from another lead: no false matched_lead against the rejected one.
  const again = intakeCommand(app.runtime, partnerId, {
    phone: `+4479115${String(10000 + seq)}`,
    email: `redecide-${seq}@example.com`,
    country_code: 'DE',
  });
  expect((await decide(again)).decision).toMatchObject({ outcome: 'accepted' });
});

it('a command whose lead was created keeps that decision after the rule changed', async () => {
  const cmd = newCommand();
  const firstReply = await decide(cmd);
  expect(firstReply.decision.outcome).toBe('accepted');
  // The decision record lost (as if the chunk died before storing it): decided again, under a rule that would reject it.
  await app.runtime.mongo.db
    .listCollections()
    .toArray()
    .then((cs) =>
      Promise.all(
        cs
          .filter((c) => c.name.startsWith('intake_decisions'))
          .map((c) =>
            app.runtime.mongo.db
              .collection(c.name)
              .deleteMany({ _id: decisionId(cmd.partner_id, cmd.idempotency_key) } as never),
          ),
      ),
    );
  await servicesOf(app.runtime).partners.update(partnerId, { blocked_countries: ['DE'] });
  try {
    const again = { ...cmd, correlation_id: `${cmd.correlation_id}-again` };
    expect((await decide(again)).decision).toMatchObject({ outcome: 'accepted', lead_id: firstReply.decision.lead_id });
  } finally {
    await servicesOf(app.runtime).partners.update(partnerId, { blocked_countries: [] });
  }
});

it('a chunk decided again on a later day keeps one data key for the lead, under the day it was first decided', async () => {
  const cmd = newCommand();
  const first = leadId(900_000 + seq);
  const yesterday = new Date(Date.now() - 86_400_000);
  await leftBehind(cmd, first, true, yesterday, true);
  expect((await decide(cmd)).decision).toMatchObject({ outcome: 'accepted', lead_id: first });
  const db = app.runtime.mongo.db;
  const days = (await db.listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    .filter((n) => n.startsWith('lead_keys_'));
  const copies = (await Promise.all(days.map((d) => db.collection(d).countDocuments({ _id: first } as never)))).reduce(
    (a, b) => a + b,
    0,
  );
  expect(copies).toBe(1);
  expect((await app.runtime.mongo.collections.leads.findOne({ _id: first }))?.created_at).toEqual(yesterday);
});

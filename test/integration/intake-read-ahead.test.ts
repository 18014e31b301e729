import type { CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { startApp, type App } from '../../src/app';
import { createLogger } from '../../src/shared/logger';
import type { IntakeReply } from '../../src/shared/schemas';
import { intakeCommand, produce } from '../support/intake-commands';
import { servicesOf } from '../support/manager-services';
import { dropTestData } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { TopicProbe } from '../support/topic-probe';

// An intake chunk's decisions wait on a chain of store round trips: its first round reads the stored
// decisions together with the claims and refs the first claim pass needs (claim.ts, readAhead), so
// none of those reads waits for another's answer. Checked on the real store from the driver's own
// command events: every one of them is sent before the first of them is answered.
const config = testConfig({ ROLE: 'processor' });
let app: App;
let replies: TopicProbe<IntakeReply>;
let partnerId: string;

beforeAll(async () => {
  app = await startApp(config, createLogger('silent'));
  replies = await new TopicProbe<IntakeReply>(app.runtime, 'intakeReplies').start();
  partnerId = (await servicesOf(app.runtime).partners.create({ name: 'Read ahead' })).partner.id;
});

afterAll(async () => {
  await replies?.stop();
  await app?.stop();
  await dropTestData(config);
});

const FIRST_ROUND = /^(intake_decisions_|dedup_claims_p|lead_refs$)/;

it('reads the stored decisions, the claims and the refs of a chunk in one round of look-ups', async () => {
  const { client } = app.runtime.mongo;
  // Idle connections at hand, so no read of the round waits for a connection to be opened.
  await Promise.all(Array.from({ length: 8 }, () => app.runtime.mongo.db.command({ ping: 1 })));
  const sent = new Map<number, { collection: string; at: number }>();
  const answered = new Map<number, number>();
  let firstClaim = Number.POSITIVE_INFINITY;
  const onStart = (e: CommandStartedEvent): void => {
    const collection = String(e.command[e.commandName] ?? '');
    if (e.commandName === 'insert' && collection.startsWith('dedup_claims_p')) firstClaim = Math.min(firstClaim, performance.now());
    if (e.commandName === 'find' && FIRST_ROUND.test(collection)) sent.set(e.requestId, { collection, at: performance.now() });
  };
  const onAnswer = (e: CommandSucceededEvent): void => {
    if (sent.has(e.requestId)) answered.set(e.requestId, performance.now());
  };
  client.on('commandStarted', onStart);
  client.on('commandSucceeded', onAnswer);
  try {
    const cmd = intakeCommand(app.runtime, partnerId, { phone: '+447911599001', email: 'read-ahead@example.com', country_code: 'DE' });
    await produce(app.runtime, 'intakeCommands', [cmd], () => cmd.lead.phone_hash);
    const got = await replies.waitFor((rs) => rs.some((r) => r.correlation_id === cmd.correlation_id), 30_000, 'the decision');
    expect(got.find((r) => r.correlation_id === cmd.correlation_id)?.decision.outcome).toBe('accepted');
  } finally {
    client.off('commandStarted', onStart);
    client.off('commandSucceeded', onAnswer);
  }

  const round = [...sent].filter(([, r]) => r.at < firstClaim);
  expect(new Set(round.map(([, r]) => r.collection.replace(/\d+$/, '')))).toEqual(new Set(['intake_decisions_', 'dedup_claims_p', 'lead_refs']));
  const lastSent = Math.max(...round.map(([, r]) => r.at));
  const firstAnswer = Math.min(...round.map(([id]) => answered.get(id) ?? Number.POSITIVE_INFINITY));
  expect(lastSent).toBeLessThan(firstAnswer);
});

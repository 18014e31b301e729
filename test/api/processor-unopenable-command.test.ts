import type { IntakeCommand, IntakeReply } from '../../src/shared/schemas';
import { intakeCommand, produce } from '../support/intake-commands';
import { servicesOf } from '../support/manager-services';
import { startTestApp, type TestApp } from '../support/test-app';
import { TopicProbe } from '../support/topic-probe';

// A command whose lead does not open (a damaged ciphertext): the processor cannot derive its dedup
// hashes, so it took no claim; it is dead-lettered like any command it fails on, and the one behind
// it on its partition is decided.
let app: TestApp;
let replies: TopicProbe<IntakeReply>;
let dead: TopicProbe<Buffer>;
let partner: string;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'processor' });
  replies = await new TopicProbe<IntakeReply>(app.runtime, 'intakeReplies').start();
  dead = await new TopicProbe<Buffer>(app.runtime, 'intakeDeadLetter', true).start();
  partner = (await servicesOf(app.runtime).partners.create({ name: 'Sealed' })).partner.id;
});

afterAll(async () => {
  await replies?.stop();
  await dead?.stop();
  await app?.destroy();
});

it('dead-letters a command whose phone does not open, answers it failed, and decides the next one', async () => {
  const good = intakeCommand(app.runtime, partner, { phone: '+447911123456' });
  const damaged = intakeCommand(app.runtime, partner, { phone: '+447911123457', email: 'dam@example.com' });
  const [keyId, iv, tag, data] = damaged.lead.phone_enc.split('.');
  const broken = { ...damaged, lead: { ...damaged.lead, phone_enc: [keyId, iv, tag, `x${data}`].join('.') } };
  await produce(app.runtime, 'intakeCommands', [broken, good], () => 'one-partition');
  const ids = new Set([broken.correlation_id, good.correlation_id]);
  const rs = (await replies.waitFor((all) => all.filter((r) => ids.has(r.correlation_id)).length === 2, 30000)).filter(
    (r) => ids.has(r.correlation_id),
  );
  const outcome = (c: IntakeCommand) => rs.find((r) => r.correlation_id === c.correlation_id)!.decision;
  expect(outcome(broken)).toMatchObject({ outcome: 'failed', reason: 'processing_failed' });
  expect(outcome(good)).toMatchObject({ outcome: 'accepted' });
  await dead.waitFor((d) => d.length > 0, 15000, 'the dead letter');
  expect(dead.seen[0]!.headers['x-dead-letter-reason']?.toString()).toBe('processing_failed');
});

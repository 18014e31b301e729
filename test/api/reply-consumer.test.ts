import { AssignerProtocol, type Admin } from 'kafkajs';
import { loadConfig } from '../../src/shared/config';
import { bareKafka } from '../../src/shared/kafka/client';
import { ReplyConsumer } from '../../src/shared/kafka/reply-waiter';
import { createLogger } from '../../src/shared/logger';
import { startRuntime, type Runtime } from '../../src/shared/runtime';
import type { CallbackReply } from '../../src/shared/schemas';
import { dropTestData, startTestApp, type TestApp } from '../support/test-app';
import { testEnv } from '../support/test-config';

// Each consumer at rest costs its process a fetch and a heartbeat every KAFKA_FETCH_MAX_WAIT_MS: the
// ingress's intake decisions and the manager's command replies are read by one consumer of the
// process, in one group of its own that reads both topics; and it starts without waiting out a
// fetch's wait, from where its topics ended, so a reply to a command sent once it started is read.
let app: TestApp;
let admin: Admin;

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  admin = bareKafka(app.config.kafka.brokers).admin();
  await admin.connect();
});

afterAll(async () => {
  await admin?.disconnect();
  await app?.destroy();
});

it('reads both reply topics with one consumer group', async () => {
  const prefix = `${app.config.kafka.topicPrefix}replies-`;
  const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith(prefix));
  expect(groups).toHaveLength(1); // one a topic: two
  const { groups: described } = await admin.describeGroups(groups);
  const members = described[0]?.members ?? [];
  expect(members).toHaveLength(1);
  const { topics } = AssignerProtocol.MemberMetadata.decode(members[0]!.memberMetadata) ?? { topics: [] };
  const { intakeReplies, callbackReplies } = app.runtime.topics;
  expect([...topics].sort()).toEqual([intakeReplies, callbackReplies].sort());
});

it('starts without waiting out a fetch, and reads a reply sent as soon as it started', async () => {
  const env = testEnv({ ROLE: 'ingress', KAFKA_SESSION_TIMEOUT_MS: '30000' });
  delete env.KAFKA_FETCH_MAX_WAIT_MS; // a fetch at rest waits 10 s
  const config = loadConfig(env);
  const rt: Runtime = await startRuntime(config, createLogger(config.logLevel));
  const replies = new ReplyConsumer(rt.consumers, 'starting', ['callbackReplies']);
  const send = async (reply_to: string) => {
    const reply: CallbackReply = { reply_to, correlation_id: 'c1', kind: 'retry', outcome: 'not_found' };
    const value = await rt.codec.encode('callbackReplies', reply);
    await rt.producer.send({ topic: rt.topics.callbackReplies, messages: [{ key: reply_to, value }] });
  };
  try {
    await send('starting'); // before it started: not its concern
    const startedAt = Date.now();
    await replies.start();
    expect(Date.now() - startedAt).toBeLessThan(5000); // waiting for a first fetch: 10 s
    expect(replies.ready).toBe(true);
    const pending = replies.waiter<CallbackReply>('callbackReplies').expect('c1', 5000);
    const sentAt = Date.now();
    await send('starting');
    expect(await pending.reply).toMatchObject({ correlation_id: 'c1', outcome: 'not_found' });
    expect(Date.now() - sentAt).toBeLessThan(2000);
  } finally {
    // The next fetch is already waiting: a record ends it, so the stop need not wait out the rest.
    const stopped = replies.stop();
    await send('someone-else');
    await stopped;
    await rt.close();
    await dropTestData(config);
  }
});

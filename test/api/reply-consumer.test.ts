import { AssignerProtocol, type Admin } from 'kafkajs';
import { bareKafka } from '../../src/shared/kafka/client';
import { startTestApp, type TestApp } from '../support/test-app';

// Each consumer at rest costs its process a fetch and a heartbeat every KAFKA_FETCH_MAX_WAIT_MS: the
// ingress's intake decisions and the manager's command replies are read by one consumer of the
// process, in one group of its own that reads both topics. Read from the broker's groups.
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

import type { Admin } from 'kafkajs';
import { bareKafka } from '../../src/shared/kafka/client';
import type { Decoded } from '../../src/shared/kafka/batch-types';
import { PartitionReader } from '../../src/shared/kafka/partition-reader';
import type { LeadEvent } from '../../src/shared/schemas';
import { leadEvent } from '../support/lead-events';
import { startTestApp, type TestApp } from '../support/test-app';
import { until } from '../support/topic-probe';

// The reader of chosen partitions from chosen offsets, beside the group that owns them (the
// dispatcher reads endpoints' backlogs back with it): it reads a partition from where it is asked,
// stops where its user stops taking, reads on from where it is asked again, and leaves its group
// once nothing is asked for a while (a consumer at rest still costs heartbeats), starting again at
// the next read.
let app: TestApp;
let admin: Admin;
const events = Array.from({ length: 10 }, () => leadEvent('pa-1'));

beforeAll(async () => {
  app = await startTestApp({ ROLE: 'ingress' });
  admin = bareKafka(app.config.kafka.brokers).admin();
  await admin.connect();
  const { codec, producer, topics } = app.runtime;
  const messages = await Promise.all(
    events.map(async (e) => ({ partition: 0, key: e.lead_id, value: await codec.encode('leadEvents', e) })),
  );
  await producer.send({ topic: topics.leadEvents, messages });
});

afterAll(async () => {
  await admin?.disconnect();
  await app?.destroy();
});

const groupsOf = async (prefix: string): Promise<string[]> => {
  const { groups } = await admin.listGroups();
  const ours = groups.map((g) => g.groupId).filter((id) => id.startsWith(prefix));
  const { groups: described } = await admin.describeGroups(ours);
  return described.filter((g) => g.members.length > 0).map((g) => g.groupId);
};

it('reads a partition from where it is asked, stops where its user does, reads on when asked, then leaves its group', async () => {
  const seen: string[] = [];
  let room = 3;
  const reader = new PartitionReader<LeadEvent>(
    app.runtime.consumers,
    'reader-test',
    'leadEvents',
    async (_partition: number, records: Decoded<LeadEvent>[]) => {
      const taken = records.slice(0, room);
      room -= taken.length;
      seen.push(...taken.map((r) => r.value.event_id));
      return taken.length;
    },
    500,
  );
  try {
    reader.read(0, 2);
    await until(async () => seen.length === 3, 20_000, 'three read');
    expect(seen).toEqual(events.slice(2, 5).map((e) => e.event_id)); // from offset 2, three taken
    await until(async () => reader.position(0) === undefined, 5_000, 'halted where its user stopped');
    room = 100;
    reader.read(0, 5);
    await until(async () => seen.length === 8, 10_000, 'the rest read');
    expect(seen.slice(3)).toEqual(events.slice(5).map((e) => e.event_id));
    const prefix = `${app.config.kafka.topicPrefix}reader-test-`;
    expect(await groupsOf(prefix)).toHaveLength(1);
    reader.halt(0);
    await until(async () => (await groupsOf(prefix)).length === 0, 10_000, 'left its group');
    reader.read(0, 9); // starts again, in a group of its own
    await until(async () => seen.length === 9, 20_000, 'read again');
    expect(seen[8]).toBe(events[9]?.event_id);
  } finally {
    await reader.stop();
  }
}, 60_000);

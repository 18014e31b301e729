import { randomBytes } from 'node:crypto';
import { ConfigResourceTypes, type Admin } from 'kafkajs';
import { bareKafka } from '../../src/shared/kafka/client';
import { TopicCodec } from '../../src/shared/kafka/codec';
import { ensureTopics, loadTopicSpecs } from '../../src/shared/kafka/topics';
import { serviceEnv } from '../setup/services-env';

// Topic creation takes replication and min.insync.replicas from configuration, not from
// topics/topics.json. The local broker is alone, so only a factor of 1 can be created here; a
// min.insync.replicas above it is still stored, which shows the setting reaches the broker.
let admin: Admin;
const prefix = `t${randomBytes(4).toString('hex')}.`;

beforeAll(async () => {
  admin = bareKafka(serviceEnv().KAFKA_BROKERS.split(',')).admin();
  await admin.connect();
});

afterAll(async () => {
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
});

it('creates every topic with the configured replication factor and min.insync.replicas', async () => {
  const specs = loadTopicSpecs(prefix);
  expect(await ensureTopics(admin, specs, { replicationFactor: 1, minInsyncReplicas: 2 })).toHaveLength(specs.length);
  const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.name) });
  for (const t of topics) expect(t.partitions.every((p) => p.replicas.length === 1)).toBe(true);
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: specs.map((s) => ({
      type: ConfigResourceTypes.TOPIC,
      name: s.name,
      configNames: ['min.insync.replicas'],
    })),
  });
  expect(
    resources.map((r) => r.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue),
  ).toEqual(specs.map(() => '2'));
});

it('refuses a replication factor the cluster cannot hold instead of creating weaker topics', async () => {
  const [spec] = loadTopicSpecs(`${prefix}r3.`);
  await expect(ensureTopics(admin, [spec!], { replicationFactor: 3, minInsyncReplicas: 2 })).rejects.toMatchObject({
    errors: [expect.objectContaining({ message: 'Replication-factor is invalid' })],
  });
  expect(await admin.listTopics()).not.toContain(spec!.name);
});

// Instances of every role start together (a deploy, the drills): each registers every topic's schema
// and sets its compatibility, and the registry makes all but one of those first rule writes lose.
it('registers the schemas from several instances starting at once', async () => {
  const specs = loadTopicSpecs(`${prefix}race.`);
  const codecs = Array.from({ length: 4 }, () => new TopicCodec(serviceEnv().SCHEMA_REGISTRY_URL, specs));
  await Promise.all(codecs.map((c) => c.registerAll()));
  const sample = { action_id: 'a', lead_id: 'le-1', status: 'contacted', occurred_at: new Date().toISOString() };
  expect(await codecs[1]!.decode('agentActions', await codecs[0]!.encode('agentActions', sample))).toEqual(sample);
});

// The retry tiers are read co-partitioned with leads.events: tiers made with fewer partitions grow to
// its count. Other topics keep theirs (adding partitions moves keys, and so their order).
it('grows retry tiers made with fewer partitions to the count they need, and no other topic', async () => {
  const specs = loadTopicSpecs(`${prefix}grow.`);
  const narrow = specs.map((s) => ({ ...s, partitions: Math.min(s.partitions, 3) }));
  await ensureTopics(admin, narrow, { replicationFactor: 1, minInsyncReplicas: 1 });
  expect(await ensureTopics(admin, specs, { replicationFactor: 1, minInsyncReplicas: 1 })).toEqual([]);
  const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.name) });
  const counts = Object.fromEntries(topics.map((t) => [t.name.slice(`${prefix}grow.`.length), t.partitions.length]));
  expect(counts).toMatchObject({
    'callbacks.retry.1': 6,
    'callbacks.retry.4': 6,
    'leads.events': 3,
    'callbacks.commands': 3,
  });
});

import { bareKafka } from '../../src/shared/kafka/client';
import { MongoClient } from 'mongodb';
import Redis from 'ioredis';
import { serviceEnv } from './services-env';

type Stoppable = { stop(): Promise<unknown> };
declare global {
  // eslint-disable-next-line no-var
  var __containers: Stoppable[] | undefined;
}

// With a Docker engine (USE_TESTCONTAINERS=1, set by scripts/test.sh), start the servers in
// containers; otherwise use the ones scripts/services.sh started. Either way, fail loudly before
// any test runs when one of them does not answer.
export default async function globalSetup(): Promise<void> {
  if (process.env.USE_TESTCONTAINERS === '1') await startContainers();
  const env = serviceEnv();
  const problems: string[] = [];
  await check(
    'Kafka',
    env.KAFKA_BROKERS,
    async () => {
      const admin = bareKafka(env.KAFKA_BROKERS.split(','), 2).admin();
      await admin.connect();
      await admin.describeCluster();
      await admin.disconnect();
    },
    problems,
  );
  await check(
    'MongoDB',
    env.MONGO_URL,
    async () => {
      const client = await MongoClient.connect(env.MONGO_URL, { serverSelectionTimeoutMS: 3000 });
      await client.db('admin').command({ ping: 1 });
      await client.close();
    },
    problems,
  );
  await check(
    'Redis',
    env.REDIS_URL,
    async () => {
      const redis = new Redis(env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      await redis.connect();
      await redis.ping();
      redis.disconnect();
    },
    problems,
  );
  await check(
    'schema registry',
    env.SCHEMA_REGISTRY_URL,
    async () => {
      const res = await fetch(`${env.SCHEMA_REGISTRY_URL}/subjects`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
    },
    problems,
  );
  if (problems.length > 0) {
    throw new Error(
      `Integration services are not reachable (start them with: bash scripts/services.sh up):\n  ${problems.join('\n  ')}`,
    );
  }
}

async function check(name: string, where: string, probe: () => Promise<void>, problems: string[]): Promise<void> {
  try {
    await probe();
  } catch (err) {
    problems.push(`${name} at ${where}: ${(err as Error).message}`);
  }
}

async function startContainers(): Promise<void> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const { RedisContainer } = await import('@testcontainers/redis');
  const [kafka, mongo, redis, registry] = await Promise.all([
    new KafkaContainer('confluentinc/cp-kafka:7.7.1').withKraft().start(),
    new MongoDBContainer('mongo:7').start(),
    new RedisContainer('redis:7').start(),
    new GenericContainer('apicurio/apicurio-registry:3.0.6')
      .withExposedPorts(8080)
      .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080))
      .start(),
  ]);
  globalThis.__containers = [kafka, mongo, redis, registry];
  process.env.KAFKA_BROKERS = `${kafka.getHost()}:${kafka.getMappedPort(9093)}`;
  process.env.MONGO_URL = `${mongo.getConnectionString()}?directConnection=true`;
  process.env.REDIS_URL = redis.getConnectionUrl();
  process.env.SCHEMA_REGISTRY_URL = `http://${registry.getHost()}:${registry.getMappedPort(8080)}/apis/ccompat/v7`;
}

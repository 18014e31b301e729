import { startApp, type App } from '../../src/app';
import type { Clock } from '../../src/shared/clock';
import type { Config } from '../../src/shared/config';
import { bareKafka } from '../../src/shared/kafka/client';
import { createLogger } from '../../src/shared/logger';
import { testConfig } from './test-config';

export interface TestApp extends App {
  config: Config;
  // Stops the app, then removes what the test created: its database, topics and Redis keys.
  destroy(): Promise<void>;
}

export async function startTestApp(
  overrides: Record<string, string> = {},
  config: Config = testConfig(overrides),
  clock?: Clock,
): Promise<TestApp> {
  const app = await startApp(config, createLogger(config.logLevel), clock);
  return {
    ...app,
    config,
    async destroy() {
      await app.stop();
      await dropTestData(config);
    },
  };
}

export async function dropTestData(config: Config): Promise<void> {
  const { MongoClient } = await import('mongodb');
  const { Redis } = await import('ioredis');
  const mongo = await MongoClient.connect(config.mongo.url);
  await mongo.db(config.mongo.db).dropDatabase();
  await mongo.close();
  const admin = bareKafka(config.kafka.brokers).admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(config.kafka.topicPrefix));
  if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
  const redis = new Redis(config.redis.url);
  const keys = await redis.keys(`${config.redis.prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}

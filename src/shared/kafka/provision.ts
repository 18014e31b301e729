import type { Admin } from 'kafkajs';
import type { SetupConfig } from '../config';
import type { Logger } from '../logger';
import { createKafka } from './client';
import { TopicCodec } from './codec';
import { ensureTopics, loadTopicSpecs, type TopicSpec } from './topics';

// Creates the missing topics and registers every topic's schema, both idempotent: at each start of
// the service (startRuntime) and on its own as `main.ts setup` (the chart's topic/schema Job).
export async function provisionTopics(
  admin: Admin,
  config: SetupConfig,
  logger: Logger,
): Promise<{ topicSpecs: TopicSpec[]; codec: TopicCodec }> {
  const topicSpecs = loadTopicSpecs(config.kafka.topicPrefix);
  const created = await ensureTopics(admin, topicSpecs, config.kafka);
  if (created.length > 0) logger.info({ topics: created }, 'created missing topics');
  const codec = new TopicCodec(config.schemaRegistryUrl, topicSpecs);
  await codec.registerAll();
  return { topicSpecs, codec };
}

// `main.ts setup`: provisions over a connection of its own, then lets it go.
export async function runSetup(config: SetupConfig, logger: Logger): Promise<void> {
  const admin = createKafka(config, logger, 'setup').admin();
  await admin.connect();
  try {
    await provisionTopics(admin, config, logger);
  } finally {
    await admin.disconnect();
  }
  logger.info({ brokers: config.kafka.brokers, registry: config.schemaRegistryUrl }, 'topics and schemas are in place');
}

import type { Admin, Kafka, Producer } from 'kafkajs';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Config } from './config';
import { PiiCipher } from './crypto/pii-cipher';
import { createKafka, connectProducer } from './kafka/client';
import type { TopicCodec } from './kafka/codec';
import { consumerSettings, type ConsumerClients } from './kafka/consumer-settings';
import { provisionTopics } from './kafka/provision';
import { topicNames, type TopicNames, type TopicSpec } from './kafka/topics';
import type { Logger } from './logger';
import { connectMongo, ensureIndexes, type Mongo } from './mongo/client';
import { countMongoCommands } from './mongo/command-metrics';
import { PartnerKeys } from './partners/partner-keys';
import { PartnerDirectory } from './partners/partner-directory';
import { AgentChanges } from './agent-changes';
import { systemClock } from './clock';
import { createRedis, type Redis } from './redis/client';
import type { ReadinessCheck } from './http/ops-routes';

// Everything the roles share, connected once per process: Kafka (admin, one producer,
// the schema codec, the consumers' clients), MongoDB, Redis, the PII cipher,
// the partner directory, the channel of agent changes and the metrics registry. Only the entry point holds it: src/role-deps.ts
// hands each role the part it uses.
export interface Runtime {
  config: Config;
  logger: Logger;
  kafka: Kafka;
  admin: Admin;
  producer: Producer;
  topicSpecs: readonly TopicSpec[];
  topics: TopicNames;
  codec: TopicCodec;
  // What every consumer is built from, its settings derived once from the configuration.
  consumers: ConsumerClients;
  mongo: Mongo;
  redis: Redis;
  subscriber: Redis;
  cipher: PiiCipher;
  partners: PartnerDirectory;
  agentChanges: AgentChanges;
  metrics: Registry;
  readiness: ReadinessCheck[];
  close(): Promise<void>;
}

export const EVENT_LOOP_SAMPLE_MS = 100;

export async function startRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const metrics = new Registry();
  // Finer GC buckets than prom-client's (1 ms, 10 ms, 100 ms...): a pause of 25 or 50 ms is what
  // shows in a request's p99, and operators (and the bench) need to tell it from one of 11 ms. The
  // event loop's delay is sampled by a timer every EVENT_LOOP_SAMPLE_MS (prom-client's 10 ms woke a
  // process at rest 100 times a second, a third of a percent of a core): the nodejs_eventloop_lag_*
  // figures are the time between samples, this interval included.
  collectDefaultMetrics({
    register: metrics,
    eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    gcDurationBuckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  });

  const kafka = createKafka(config, logger, config.roles.join('-'));
  const admin = kafka.admin();
  // Kafka's side (topics, schemas, the producer) and the store's (indexes) are set up side by side:
  // neither waits on the other, and a start costs the longer of the two, not their sum.
  const [{ topicSpecs, codec, producer }, mongo] = await bothSettled(
    (async () => {
      await admin.connect();
      const provisioned = await provisionTopics(admin, config, logger);
      return { ...provisioned, producer: await connectProducer(kafka, logger) };
    })(),
    (async () => {
      const connected = await connectMongo(config);
      countMongoCommands(connected.client, metrics);
      await ensureIndexes(connected.collections);
      return connected;
    })(),
    // The admin connects first on Kafka's side: closed whether that half failed or not.
    (k, m) => Promise.allSettled([k?.producer.disconnect(), admin.disconnect(), m?.client.close()]),
  );

  const redis = createRedis(config, 'commands');
  const subscriber = createRedis(config, 'subscriber');
  const close = async () => {
    await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
    await Promise.allSettled([mongo.client.close(), redis.quit(), subscriber.quit()]);
  };
  const cipher = new PiiCipher(config.crypto.encryptionKeys, config.crypto.activeKeyId);
  // A partner look-up that MongoDB does not answer fails within the time a partner's request waits
  // for its decision, so a silent database answers the partner API 503 instead of holding it.
  const partnerKeys = new PartnerKeys(mongo.collections.partnerKeys);
  const partners = new PartnerDirectory(
    mongo.collections.partners,
    partnerKeys,
    cipher,
    `${config.redis.prefix}partner-changed`,
    systemClock,
    config.intake.replyTimeoutMs,
  );
  try {
    await partnerKeys.backfill(mongo.collections.partners, new Date());
    await partners.listen(subscriber);
  } catch (err) {
    await close();
    throw err;
  }

  const readiness: ReadinessCheck[] = [
    { name: 'mongodb', check: async () => void (await mongo.db.command({ ping: 1 })) },
    { name: 'redis', check: async () => void (await redis.ping()) },
    { name: 'kafka', check: async () => void (await admin.describeCluster()) },
  ];

  const topics = topicNames(topicSpecs);
  return {
    config,
    logger,
    kafka,
    admin,
    producer,
    topicSpecs,
    topics,
    codec,
    consumers: { kafka, settings: consumerSettings(config.kafka), codec, topics, logger, admin },
    mongo,
    redis,
    subscriber,
    cipher,
    partners,
    agentChanges: new AgentChanges(`${config.redis.prefix}agent-changed`),
    metrics,
    readiness,
    close,
  };
}

// Both results once both are done; the first failure only once both have settled, so neither half of
// the start is still running when the caller sees it fail, and `close` is given what either half
// opened (undefined for the half that failed): a start that fails holds no connection that would
// keep its process alive.
async function bothSettled<A, B>(
  a: Promise<A>,
  b: Promise<B>,
  close: (a: A | undefined, b: B | undefined) => Promise<unknown>,
): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'fulfilled' && rb.status === 'fulfilled') return [ra.value, rb.value];
  await close(ra.status === 'fulfilled' ? ra.value : undefined, rb.status === 'fulfilled' ? rb.value : undefined).catch(
    () => undefined,
  );
  throw ra.status === 'rejected' ? ra.reason : (rb as PromiseRejectedResult).reason;
}

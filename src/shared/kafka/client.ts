import {
  Kafka,
  logLevel,
  Partitioners,
  type Consumer,
  type ConsumerConfig,
  type LogEntry,
  type Producer,
} from 'kafkajs';
import type { KafkaConfig } from '../config';
import type { Logger } from '../logger';
import { restartAfterAnyCrash } from './consumer-restart';
import type { ConsumerSettings } from './consumer-settings';
import { coalesceSends } from './send-batcher';
import { retryWholeSends, type SendRetry } from './whole-send-retry';
import './request-queue-timer'; // no 1 ms timer loop per broker connection (see there)
import './commit-coordinator'; // a commit refused by a coordinator that moved looks it up again (see there)

// How often and how patiently a failed send is tried again (whole-send-retry.ts); the client's
// requests other than produce keep kafkajs's own retries, with the same numbers.
const SEND_RETRY: SendRetry = { retries: 8, initialMs: 200, maxMs: 30_000 };

// All Kafka access goes through here (kafkajs is in maintenance mode: keep it behind one module).
export function createKafka(
  config: { kafka: Pick<KafkaConfig, 'clientId' | 'brokers'> },
  logger: Logger,
  clientSuffix: string,
): Kafka {
  const log = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId: `${config.kafka.clientId}-${clientSuffix}`,
    brokers: [...config.kafka.brokers],
    connectionTimeout: 3000,
    retry: { initialRetryTime: SEND_RETRY.initialMs, retries: SEND_RETRY.retries, maxRetryTime: SEND_RETRY.maxMs },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }: LogEntry) => {
        const { message, ...extra } = entry;
        if (level <= logLevel.ERROR) log.error(extra, message);
        else log.warn(extra, message);
      },
  });
}

// A bare client (kafkajs's own logging off and its retries) for the tests' set-up, tools and the bench:
// built here like every client, so kafkajs is patched in their processes too.
export function bareKafka(brokers: readonly string[], retries?: number): Kafka {
  return new Kafka({
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    ...(retries !== undefined && { retry: { retries } }),
  });
}

// One produce request in flight per broker (send order kept), acks=all (kafkajs's default: a send
// succeeds only once min.insync.replicas replicas have it). Not idempotent, and no retries inside
// kafkajs: its retry of a partly failed request drops messages, so a failed send is sent again whole
// (whole-send-retry.ts), which an idempotent producer refuses. kafkajs's idempotent producer also
// keeps its producer id and sequences across a leader change, and a new leader may refuse them for
// good ("out of order sequence number"): a producer without that state cannot wedge. A message
// written twice is fenced by the `_id`s its consumers write under. Concurrent sends share produce
// requests (send-batcher.ts): with one request in flight, one each would queue.
export async function connectProducer(kafka: Kafka, logger: Logger): Promise<Producer> {
  const producer = kafka.producer({
    idempotent: false,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: 0 },
  });
  await producer.connect();
  return coalesceSends(retryWholeSends(producer, SEND_RETRY, logger.child({ component: 'producer' })));
}

// Every consumer of the service, on the settings every one shares (consumer-settings.ts): a fetch
// waits up to KAFKA_FETCH_MAX_WAIT_MS for records (a consumer at rest fetches that often; a stop
// waits for the pending fetch); a crash kafkajs gives up on is restarted all the same
// (consumer-restart.ts). A role may bound what a fetch brings (withFetchBytes).
export function createConsumer(
  kafka: Kafka,
  settings: ConsumerSettings,
  group: string,
  extra: Partial<ConsumerConfig> = {},
): Consumer {
  return restartAfterAnyCrash(
    kafka.consumer({
      groupId: `${settings.groupPrefix}${group}`,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: settings.heartbeatIntervalMs,
      rebalanceTimeout: settings.rebalanceTimeoutMs,
      maxWaitTimeInMs: settings.fetchMaxWaitMs,
      ...settings.fetchBytes,
      allowAutoTopicCreation: false,
      ...extra,
    }),
  );
}

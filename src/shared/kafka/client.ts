import { Kafka, logLevel, Partitioners, type Consumer, type ConsumerConfig, type LogEntry, type Producer } from 'kafkajs';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { restartAfterAnyCrash } from './consumer-restart';
import { renewingProducer } from './renewing-producer';
import { coalesceSends } from './send-batcher';
import './request-queue-timer'; // no 1 ms timer loop per broker connection (see there)
import './commit-coordinator'; // a commit refused by a coordinator that moved looks it up again (see there)

// All Kafka access goes through here (kafkajs is in maintenance mode: keep it behind one module).
export function createKafka(config: Pick<Config, 'kafka'>, logger: Logger, clientSuffix: string): Kafka {
  const log = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId: `${config.kafka.clientId}-${clientSuffix}`,
    brokers: [...config.kafka.brokers],
    connectionTimeout: 3000,
    retry: { initialRetryTime: 200, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator: () => ({ level, log: entry }: LogEntry) => {
      const { message, ...extra } = entry;
      if (level <= logLevel.ERROR) log.error(extra, message);
      else log.warn(extra, message);
    },
  });
}

// One produce request in flight (send order kept), acks=all (kafkajs's default: a send succeeds only
// once min.insync.replicas replicas have the message), and no retries inside kafkajs: kafkajs 2.2.4
// retries a request that failed in part only towards the brokers that did not answer, so messages
// whose partition leader moved to a broker that had answered are never sent and the send succeeds
// without them (sendMessages.js; the 3-broker failover drill lost lead events that way). A failed send
// rejects whole and its caller sends it all again. Not idempotent: kafkajs refuses an idempotent
// producer without retries, and its sequence numbers wedge after a leader change (renewing-producer.ts);
// a message written twice is fenced by the `_id`s its consumers write under. Concurrent sends share
// produce requests (send-batcher.ts): with one request in flight, one each would queue.
export async function connectProducer(kafka: Kafka, logger: Logger): Promise<Producer> {
  const make = async (): Promise<Producer> => {
    const producer = kafka.producer({
      idempotent: false, maxInFlightRequests: 1, allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner,
      retry: { retries: 0 },
    });
    await producer.connect();
    return producer;
  };
  return coalesceSends(await renewingProducer(make, logger.child({ component: 'producer' })));
}

// Every consumer of the service: the session timeout bounds how long a crashed member holds its
// partitions; a short fetch wait keeps shutdown quick (disconnect waits for the pending fetch); a
// crash kafkajs gives up on is restarted all the same (consumer-restart.ts).
export function createConsumer(kafka: Kafka, config: Config, group: string, extra: Partial<ConsumerConfig> = {}): Consumer {
  return restartAfterAnyCrash(kafka.consumer({
    groupId: `${config.kafka.topicPrefix}${group}`,
    sessionTimeout: config.kafka.sessionTimeoutMs,
    heartbeatInterval: Math.floor(config.kafka.sessionTimeoutMs / 10),
    maxWaitTimeInMs: 1000,
    allowAutoTopicCreation: false,
    ...extra,
  }));
}

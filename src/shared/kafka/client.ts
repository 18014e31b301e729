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

// Idempotent producer: a retried send never writes a message twice into the log. kafkajs makes an
// idempotent producer use acks=all (-1, its default, and it refuses any other), so a send succeeds
// only once min.insync.replicas replicas have the message. Concurrent sends share produce requests
// (send-batcher.ts): with one request in flight, one each would queue.
// A producer the broker refuses after a leader change is replaced (renewing-producer.ts).
export async function connectProducer(kafka: Kafka, logger: Logger): Promise<Producer> {
  const make = async (): Promise<Producer> => {
    const producer = kafka.producer({
      idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner,
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

import type { Admin, Kafka } from 'kafkajs';
import type { FetchBytes, KafkaConfig } from '../config';
import type { Logger } from '../logger';
import type { TopicCodec } from './codec';
import { rebalanceTimeoutFor } from './membership-lease';
import type { TopicNames } from './topics';

// What every consumer of the service takes of the configuration, derived once at start. The session
// bounds how long a crashed member holds its partitions; the rebalance timeout bounds a hand-over's
// lease (membership-lease.ts).
export interface ConsumerSettings {
  // Group ids carry the topics' prefix: deployments sharing a cluster keep their groups apart.
  readonly groupPrefix: string;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly fetchMaxWaitMs: number;
  // What a fetch may bring (kafkajs's defaults where absent: 1 MB a partition, 10 MB a fetch).
  readonly fetchBytes?: FetchBytes;
}

export function consumerSettings(
  kafka: Pick<KafkaConfig, 'topicPrefix' | 'sessionTimeoutMs' | 'fetchMaxWaitMs'>,
): ConsumerSettings {
  return Object.freeze({
    groupPrefix: kafka.topicPrefix,
    sessionTimeoutMs: kafka.sessionTimeoutMs,
    heartbeatIntervalMs: Math.floor(kafka.sessionTimeoutMs / 10),
    rebalanceTimeoutMs: rebalanceTimeoutFor(kafka.sessionTimeoutMs),
    fetchMaxWaitMs: kafka.fetchMaxWaitMs,
  });
}

// The same settings with a role's own bound on what a fetch brings.
export function withFetchBytes(settings: ConsumerSettings, fetchBytes: FetchBytes): ConsumerSettings {
  return Object.freeze({ ...settings, fetchBytes });
}

// What a consumer is built from: the client and its settings, the codec and topic names it decodes
// by, a logger, and the admin client (a co-partitioned consumer compares the topics' partition counts).
export interface ConsumerClients {
  kafka: Kafka;
  settings: ConsumerSettings;
  codec: TopicCodec;
  topics: TopicNames;
  logger: Logger;
  admin?: Admin;
}

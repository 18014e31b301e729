import { ConfigError } from '../errors';
import type { EnvReader } from './env-reader';

export interface KafkaConfig {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly topicPrefix: string;
  readonly sessionTimeoutMs: number;
  // How long the broker holds a fetch with nothing new: a record ends the wait at once, so this costs
  // no latency; it is what an idle consumer costs (a fetch each time) and how long a stop may wait.
  readonly fetchMaxWaitMs: number;
  // Of the topics this service creates: 1 on a laptop, 3 and 2 in production (the chart's values).
  readonly replicationFactor: number;
  readonly minInsyncReplicas: number;
}

// What one fetch of a consumer may bring: a partition's share and the whole response. Kafka cuts a
// record batch that does not fit, and such a partition waits until it comes first in a fetch with
// data: the share must stay above the largest batch producers write (ours: at most 512 KB a request).
export interface FetchBytes {
  readonly maxBytesPerPartition: number;
  readonly maxBytes: number;
}

// What `main.ts setup` needs (topics and schemas): where Kafka and the registry are, nothing secret,
// so the chart's pre-install Job runs before any Secret of the release exists.
export interface SetupConfig {
  readonly logLevel: string;
  readonly kafka: KafkaConfig;
  readonly schemaRegistryUrl: string;
}

export function readSetup(r: EnvReader): SetupConfig {
  const brokers = r.list('KAFKA_BROKERS', ['127.0.0.1:9092']);
  if (brokers.some((b) => !/^[^:\s]+:\d+$/.test(b)))
    throw new ConfigError('KAFKA_BROKERS', 'must be a list of host:port');
  const replicationFactor = r.int('KAFKA_REPLICATION_FACTOR', 1, 1, 32);
  const minInsyncReplicas = r.int('KAFKA_MIN_INSYNC_REPLICAS', 1, 1, 32);
  if (minInsyncReplicas > replicationFactor) {
    throw new ConfigError(
      'KAFKA_MIN_INSYNC_REPLICAS',
      `must not exceed KAFKA_REPLICATION_FACTOR (${replicationFactor}), got ${minInsyncReplicas}`,
    );
  }
  const sessionTimeoutMs = r.int('KAFKA_SESSION_TIMEOUT_MS', 30000, 6000, 300000);
  const fetchMaxWaitMs = r.int('KAFKA_FETCH_MAX_WAIT_MS', Math.min(5000, Math.floor(sessionTimeoutMs / 3)), 100, 30000);
  // kafkajs heartbeats between fetches: a fetch must end well within a session.
  if (fetchMaxWaitMs > sessionTimeoutMs / 3)
    throw new ConfigError(
      'KAFKA_FETCH_MAX_WAIT_MS',
      `must not exceed a third of KAFKA_SESSION_TIMEOUT_MS (${sessionTimeoutMs})`,
    );
  return {
    logLevel: r.string('LOG_LEVEL', 'info'),
    kafka: {
      brokers,
      clientId: r.string('KAFKA_CLIENT_ID', 'lead-intake'),
      topicPrefix: r.string('TOPIC_PREFIX', ''),
      sessionTimeoutMs,
      fetchMaxWaitMs,
      replicationFactor,
      minInsyncReplicas,
    },
    schemaRegistryUrl: r.url('SCHEMA_REGISTRY_URL', 'http://127.0.0.1:8081/apis/ccompat/v7', ['http:', 'https:']),
  };
}

// The dispatcher's consumers: kafkajs's defaults (1 MB a partition, 10 MB a fetch). Lower, a backlog waits
// on the topic rather than in the heap, but a partition whose record batches exceed the share is starved
// while earlier partitions of the fetch have data, and the bench set a dead backlog aside a third as fast.
export function readDispatcherFetch(r: EnvReader): FetchBytes {
  const maxBytesPerPartition = r.int('DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION', 1048576, 16384, 10485760);
  const maxBytes = r.int('DISPATCHER_FETCH_MAX_BYTES', 10485760, 16384, 104857600);
  if (maxBytes < maxBytesPerPartition)
    throw new ConfigError(
      'DISPATCHER_FETCH_MAX_BYTES',
      `must not be below DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION (${maxBytesPerPartition}), got ${maxBytes}`,
    );
  return { maxBytesPerPartition, maxBytes };
}

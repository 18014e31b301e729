import type { Kafka } from 'kafkajs';
import { startIdleCheckForwarder } from '../../src/processor/idle-check-forwarder';
import { consumerSettings } from '../../src/shared/kafka/consumer-settings';
import type { TopicCodec } from '../../src/shared/kafka/codec';
import type { TopicNames } from '../../src/shared/kafka/topics';
import { createLogger } from '../../src/shared/logger';

// The idle checks' consumer at rest fetches as seldom as every other consumer (KAFKA_FETCH_MAX_WAIT_MS):
// a check due after minutes may be a few seconds late, and a pausing consumer's one-second fetch
// would wake the processor every second for nothing.
it('fetches idle checks with the consumers’ fetch wait', async () => {
  const configs: { maxWaitTimeInMs?: number }[] = [];
  const consumer = {
    events: { GROUP_JOIN: 'join', CRASH: 'crash', STOP: 'stop' },
    on: () => () => undefined,
    connect: async () => undefined,
    subscribe: async () => undefined,
    run: async () => undefined,
    logger: () => createLogger('silent'),
  };
  const kafka = {
    consumer: (config: { maxWaitTimeInMs?: number }) => {
      configs.push(config);
      return consumer;
    },
  } as unknown as Kafka;
  const settings = consumerSettings({ topicPrefix: '', sessionTimeoutMs: 30_000, fetchMaxWaitMs: 5_000 });
  await startIdleCheckForwarder({
    consumers: {
      kafka,
      settings,
      codec: {} as TopicCodec,
      topics: { idleChecks: 'leads.idle-checks' } as TopicNames,
      logger: createLogger('silent'),
    },
    producer: {} as never,
    codec: {} as TopicCodec,
    topics: {} as TopicNames,
    logger: createLogger('silent'),
  });
  expect(configs.map((c) => c.maxWaitTimeInMs)).toEqual([5_000]);
});

import { createConsumer } from '../../src/shared/kafka/client';
import { restartDrillSuite } from '../support/restart-drill';
import { until } from '../support/topic-probe';

// Fault drill: the Kafka broker stops in the middle of a steady load and comes back (same data,
// same ports). The broker is a PRIVATE one (scripts/services/kafka.sh on free ports, data in a
// temporary LEADS_RUN); the shared broker other test files use is never touched. The schema
// registry, MongoDB and Redis are the shared ones. While the broker is down the partner API answers
// 503 with Retry-After, promptly; once it is back the app recovers without help, and nothing is
// lost or doubled.
const app = restartDrillSuite('kafka', 'the broker', 4000, 180_000);

// What the drill met now and then: an outage that ends in an error kafkajs deems non-retriable
// ("Failed to find group coordinator") crashed a consumer for good. A bug in a handler (a TypeError)
// is the reproducible way to such a crash; the service's consumers must come back from it.
it('restarts a consumer after a crash kafkajs itself would not restart', async () => {
  const rt = app().runtime;
  const topic = `${rt.config.kafka.topicPrefix}drill.crash`;
  await rt.admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  const consumer = createConsumer(rt.kafka, rt.consumers.settings, 'drill-crash');
  const restarts: boolean[] = [];
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    restarts.push(payload.restart);
  });
  const seen: string[] = [];
  let crashed = false;
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (!crashed) {
        crashed = true;
        throw new TypeError('a bug in the handler');
      }
      seen.push(String(message.value));
    },
  });
  try {
    await rt.producer.send({ topic, messages: [{ value: 'after the crash' }] });
    await until(async () => seen.includes('after the crash'), 30_000, 'the message, consumed after a restart');
    expect(restarts).toEqual([false]); // kafkajs gave up on it
  } finally {
    await consumer.disconnect();
  }
}, 60_000);

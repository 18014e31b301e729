import pino from 'pino';
import type { Admin, Consumer, Producer } from 'kafkajs';
import { loadSetupConfig } from '../../src/shared/config';
import { connectProducer, createConsumer, createKafka } from '../../src/shared/kafka/client';
import { consumerSettings } from '../../src/shared/kafka/consumer-settings';
import { testEnv } from '../support/test-config';

// A consumer at rest costs its process a fetch and a heartbeat each time its fetch's wait ends: on
// the default settings (a 30 s session) it asks the broker once in a third of the session, and a
// record still ends the wait at once. Counted on a real broker.
const env = testEnv({ KAFKA_SESSION_TIMEOUT_MS: '30000' });
delete env.KAFKA_FETCH_MAX_WAIT_MS;
const config = loadSetupConfig(env);
const topic = `${config.kafka.topicPrefix}at-rest`;
const kafka = createKafka(config, pino({ level: 'silent' }), 'fetch-at-rest-test');
let admin: Admin;
let producer: Producer;
let consumer: Consumer;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  producer = await connectProducer(kafka, pino({ level: 'silent' }));
});

afterAll(async () => {
  await producer?.disconnect();
  await admin?.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin?.disconnect();
});

it('fetches once in a third of the session at rest, and a record still arrives at once', async () => {
  consumer = createConsumer(kafka, consumerSettings(config.kafka), 'at-rest');
  const requests: { api: string; at: number }[] = [];
  consumer.on(consumer.events.REQUEST, ({ payload }) => requests.push({ api: payload.apiName, at: Date.now() }));
  const firstFetch = new Promise<number>((resolve) => {
    const off = consumer.on(consumer.events.FETCH_START, () => {
      off();
      resolve(Date.now());
    });
  });
  let received: (at: number) => void = () => undefined;
  const arrived = new Promise<number>((resolve) => (received = resolve));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: false });
  await consumer.run({ eachMessage: async () => received(Date.now()) });
  try {
    const restFrom = await firstFetch;
    await new Promise((r) => setTimeout(r, 9000));
    const atRest = requests.filter((q) => q.at > restFrom + 100).map((q) => q.api);
    expect(atRest).toEqual([]); // a 5 s wait: a fetch and a heartbeat, perhaps two of each
    const sentAt = Date.now();
    await producer.send({ topic, messages: [{ key: 'k', value: 'v' }] });
    expect((await arrived) - sentAt).toBeLessThan(1000);
  } finally {
    // The next fetch is already waiting: a record ends it, so the stop need not wait out the rest.
    const stopped = consumer.disconnect();
    await producer.send({ topic, messages: [{ key: 'k', value: 'end' }] });
    await stopped;
  }
});

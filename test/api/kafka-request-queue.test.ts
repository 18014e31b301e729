import pino from 'pino';
import type { Admin } from 'kafkajs';
import { connectProducer, createKafka } from '../../src/shared/kafka/client';
import { testConfig } from '../support/test-config';

// Every Kafka client of the service comes from client.ts, which fixes kafkajs 2.2.4's request queue
// (request-queue-timer.ts): a connection with nothing pending and no throttle must not check its
// queue again and again. Unfixed, each connection that got an answer checks it every millisecond for
// the life of the process. Counted on a real broker, while the clients sit idle.
const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: { checkPendingRequests(): void } };
const check = RequestQueue.prototype.checkPendingRequests;
let checks = 0;
let admin: Admin;

beforeAll(() => {
  RequestQueue.prototype.checkPendingRequests = function counted(this: unknown) {
    checks++;
    return check.call(this);
  };
});

afterAll(async () => {
  RequestQueue.prototype.checkPendingRequests = check;
  await admin?.disconnect();
});

it('leaves an idle connection without a timer loop, and still sends and answers every request', async () => {
  const kafka = createKafka(testConfig(), pino({ level: 'silent' }), 'request-queue-test');
  admin = kafka.admin();
  await admin.connect();
  const producer = await connectProducer(kafka, pino({ level: 'silent' }));
  try {
    // Many requests at once on one connection each: some wait in the queue and must still go.
    const answers = await Promise.all(Array.from({ length: 50 }, () => admin.listTopics()));
    expect(answers.every((topics) => Array.isArray(topics))).toBe(true);
    checks = 0;
    await new Promise((r) => setTimeout(r, 500));
    expect(checks).toBeLessThan(5); // unfixed: about 500 a connection
  } finally {
    await producer.disconnect();
  }
});

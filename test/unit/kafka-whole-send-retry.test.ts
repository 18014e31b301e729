import type { Producer, ProducerBatch } from 'kafkajs';
import { KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, KafkaJSConnectionError } from 'kafkajs';
import pino from 'pino';
import { retryWholeSends } from '../../src/shared/kafka/whole-send-retry';

// A stand-in for kafkajs's producer object (pure logic: what is sent again, and when).
function producerFailing(failures: Error[]): Producer & { batches: ProducerBatch[] } {
  const batches: ProducerBatch[] = [];
  const sendBatch = async (batch: ProducerBatch) => {
    batches.push(batch);
    const failure = failures.shift();
    if (failure) throw failure;
    return [];
  };
  return {
    batches,
    sendBatch,
    send: async (r: { topic: string; messages: [] }) => sendBatch({ topicMessages: [r] }),
  } as unknown as Producer & { batches: ProducerBatch[] };
}

const spent = () =>
  new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('Connection timeout'), { retryCount: 0, retryTime: 0 });
const noPause = async () => undefined;
const batch: ProducerBatch = {
  topicMessages: [
    { topic: 'a', messages: [{ value: '1' }] },
    { topic: 'b', messages: [{ value: '2' }] },
  ],
};

describe('retryWholeSends', () => {
  it('sends a failed batch again whole, every topic and partition of it, until it succeeds', async () => {
    const inner = producerFailing([spent(), spent()]);
    const producer = retryWholeSends(inner, { retries: 8, initialMs: 1, maxMs: 1 }, pino({ level: 'silent' }), noPause);
    await producer.sendBatch(batch);
    expect(inner.batches).toEqual([batch, batch, batch]);
  });
  it('gives up after its retries with the last failure', async () => {
    const inner = producerFailing([spent(), spent(), spent()]);
    const producer = retryWholeSends(inner, { retries: 2, initialMs: 1, maxMs: 1 }, pino({ level: 'silent' }), noPause);
    await expect(producer.send({ topic: 'a', messages: [] })).rejects.toThrow(KafkaJSNumberOfRetriesExceeded);
    expect(inner.batches).toHaveLength(3);
  });
  it('does not send again what can never succeed', async () => {
    const inner = producerFailing([new KafkaJSNonRetriableError('Message too large')]);
    const producer = retryWholeSends(inner, { retries: 8, initialMs: 1, maxMs: 1 }, pino({ level: 'silent' }), noPause);
    await expect(producer.sendBatch(batch)).rejects.toThrow('Message too large');
    expect(inner.batches).toHaveLength(1);
  });
  it('waits longer after each failure, up to its bound', async () => {
    const waits: number[] = [];
    const inner = producerFailing([spent(), spent(), spent(), spent()]);
    const producer = retryWholeSends(
      inner,
      { retries: 8, initialMs: 100, maxMs: 300 },
      pino({ level: 'silent' }),
      async (ms) => {
        waits.push(ms);
      },
    );
    await producer.sendBatch(batch);
    // ±20 % jitter around 100, 200, 300, 300
    [100, 200, 300, 300].forEach((base, i) => expect(Math.abs(waits[i]! - base)).toBeLessThanOrEqual(base * 0.2));
    expect(waits).toHaveLength(4);
  });
});

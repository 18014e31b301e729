import pino from 'pino';
import { KafkaJSNonRetriableError, KafkaJSProtocolError, type Producer } from 'kafkajs';
import { refusesProducer, renewingProducer } from '../../src/shared/kafka/renewing-producer';

const outOfOrder = () => new KafkaJSNonRetriableError(new KafkaJSProtocolError(Object.assign(new Error('The broker received an out of order sequence number'), { type: 'OUT_OF_ORDER_SEQUENCE_NUMBER', code: 45 })));

describe('refusesProducer', () => {
  it('knows the errors after which the broker refuses the producer id for good, however wrapped', () => {
    expect(refusesProducer(outOfOrder())).toBe(true);
    expect(refusesProducer(Object.assign(new Error('x'), { type: 'UNKNOWN_PRODUCER_ID' }))).toBe(true);
    expect(refusesProducer(new Error('wrapper', { cause: Object.assign(new Error('y'), { type: 'INVALID_PRODUCER_EPOCH' }) }))).toBe(true);
  });
  it('leaves passing errors to kafkajs', () => {
    expect(refusesProducer(Object.assign(new Error('There is no leader for this topic-partition'), { type: 'LEADER_NOT_AVAILABLE' }))).toBe(false);
    expect(refusesProducer(undefined)).toBe(false);
  });
});

// A stand-in for kafkajs's producer object (pure logic: which producer a send goes to).
function fakeProducer(name: string, failWith?: () => Error): Producer & { name: string; sent: number; disconnected: boolean } {
  const p = {
    name, sent: 0, disconnected: false,
    send: async () => {
      if (failWith) throw failWith();
      p.sent++;
      return [];
    },
    sendBatch: async () => {
      if (failWith) throw failWith();
      p.sent++;
      return [];
    },
    disconnect: async () => {
      p.disconnected = true;
    },
  };
  return p as unknown as Producer & typeof p;
}

describe('renewingProducer', () => {
  it('replaces a producer the broker refuses with a new one; the failed send still rejects', async () => {
    const made = [fakeProducer('first', outOfOrder), fakeProducer('second')];
    let n = 0;
    const producer = await renewingProducer(async () => made[n++]!, pino({ level: 'silent' }));
    await expect(producer.send({ topic: 't', messages: [] })).rejects.toThrow('out of order sequence');
    await producer.sendBatch({ topicMessages: [] });
    expect([made[0]!.disconnected, made[1]!.sent, n]).toEqual([true, 1, 2]);
  });
  it('keeps the producer through any other error', async () => {
    let n = 0;
    const producer = await renewingProducer(async () => {
      n++;
      return fakeProducer('only', () => new Error('Connection timeout'));
    }, pino({ level: 'silent' }));
    await expect(producer.send({ topic: 't', messages: [] })).rejects.toThrow('Connection timeout');
    expect(n).toBe(1);
  });
});

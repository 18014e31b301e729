import type { Producer, ProducerBatch, ProducerRecord, RecordMetadata } from 'kafkajs';
import { coalesceSends } from '../../src/shared/kafka/send-batcher';

// A stand-in for kafkajs's producer that records each produce request and lets the test finish
// them one at a time, as a broker with one request in flight would.
function fakeProducer() {
  const requests: { batch: ProducerBatch; finish(err?: Error): void }[] = [];
  const sent: ProducerRecord[] = [];
  const producer = {
    send: async (record: ProducerRecord) => {
      sent.push(record);
      return [];
    },
    sendBatch: (batch: ProducerBatch) =>
      new Promise<RecordMetadata[]>((resolve, reject) => {
        requests.push({
          batch,
          finish: (err) =>
            err
              ? reject(err)
              : resolve((batch.topicMessages ?? []).map((t) => ({ topicName: t.topic, partition: 0, errorCode: 0 }))),
        });
      }),
    disconnect: async () => undefined,
  } as unknown as Producer;
  return { producer, requests, sent };
}

const msg = (v: string) => ({ key: v, value: v });
const tick = () => new Promise((r) => setImmediate(r));

describe('coalesceSends', () => {
  it('sends at once when idle, and sends that arrive meanwhile together next, in call order', async () => {
    const { producer, requests } = fakeProducer();
    const p = coalesceSends(producer);
    const first = p.send({ topic: 'a', messages: [msg('1')] });
    await tick();
    expect(requests).toHaveLength(1);
    const second = p.send({ topic: 'a', messages: [msg('2')] });
    const third = p.send({ topic: 'b', messages: [msg('3')] });
    const fourth = p.send({ topic: 'a', messages: [msg('4')] });
    await tick();
    expect(requests).toHaveLength(1); // one request in flight at a time
    requests[0]?.finish();
    await first;
    await tick();
    expect(requests).toHaveLength(2);
    expect(requests[1]?.batch.topicMessages).toEqual([
      { topic: 'a', messages: [msg('2'), msg('4')] },
      { topic: 'b', messages: [msg('3')] },
    ]);
    requests[1]?.finish();
    expect(await second).toEqual([{ topicName: 'a', partition: 0, errorCode: 0 }]);
    expect(await third).toEqual([{ topicName: 'b', partition: 0, errorCode: 0 }]);
    await fourth;
  });

  it('sends the sends of one turn on an idle producer in one request', async () => {
    const { producer, requests } = fakeProducer();
    const p = coalesceSends(producer);
    const sends = ['1', '2', '3'].map((v) => p.send({ topic: 'a', messages: [msg(v)] }));
    await tick();
    expect(requests).toHaveLength(1);
    expect(requests[0]?.batch.topicMessages).toEqual([{ topic: 'a', messages: [msg('1'), msg('2'), msg('3')] }]);
    requests[0]?.finish();
    await Promise.all(sends);
  });

  it('fails every send of a failed request, and carries on with the next', async () => {
    const { producer, requests } = fakeProducer();
    const p = coalesceSends(producer);
    const first = p.send({ topic: 'a', messages: [msg('1')] });
    await tick();
    const second = p.send({ topic: 'a', messages: [msg('2')] });
    const third = p.send({ topic: 'a', messages: [msg('3')] });
    requests[0]?.finish();
    await first;
    await tick();
    requests[1]?.finish(new Error('broker gone'));
    await expect(second).rejects.toThrow('broker gone');
    await expect(third).rejects.toThrow('broker gone');
    const fourth = p.send({ topic: 'a', messages: [msg('4')] });
    await tick();
    requests[2]?.finish();
    await expect(fourth).resolves.toEqual([{ topicName: 'a', partition: 0, errorCode: 0 }]);
  });

  it('keeps a request under 500 messages', async () => {
    const { producer, requests } = fakeProducer();
    const p = coalesceSends(producer);
    const sends = [p.send({ topic: 'a', messages: [msg('0')] })];
    await tick();
    for (let i = 1; i <= 700; i++) sends.push(p.send({ topic: 'a', messages: [msg(String(i))] }));
    requests[0]?.finish();
    await tick();
    expect(requests[1]?.batch.topicMessages?.[0]?.messages).toHaveLength(500);
    requests[1]?.finish();
    await tick();
    await tick();
    expect(requests[2]?.batch.topicMessages?.[0]?.messages).toHaveLength(200);
    requests[2]?.finish();
    await Promise.all(sends);
  });

  it('passes a send with its own acks, timeout or compression through unchanged', async () => {
    const { producer, requests, sent } = fakeProducer();
    const p = coalesceSends(producer);
    await p.send({ topic: 'a', messages: [msg('1')], acks: 1 });
    expect(sent).toHaveLength(1);
    expect(requests).toHaveLength(0);
  });
});

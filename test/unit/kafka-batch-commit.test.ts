import type { Consumer, KafkaMessage } from 'kafkajs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { offsetCommits } from '../../src/shared/kafka/batch-commit';
import type { Decoded } from '../../src/shared/kafka/batch-types';
import { createLogger } from '../../src/shared/logger';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

// What a partition keeps of its records while their work is under way: their offsets, not the
// records (a message's bytes are a view of its whole fetch response, its value the decoded event).
const consumer = { on: () => undefined, events: { GROUP_JOIN: 'join', CRASH: 'crash' } } as unknown as Consumer;

it('keeps the offset of a record whose work is under way, not the record', async () => {
  const commits = offsetCommits({ group: 'g', maxUncommitted: 10 }, createLogger('silent'));
  commits.attach(consumer);
  const underWay = new Promise<void>(() => undefined); // never recorded here
  const handOver = (): WeakRef<object> => {
    const message = { offset: '7', value: Buffer.alloc(1024) } as unknown as KafkaMessage;
    const record: Decoded<object> = { topic: 'leadEvents', partition: 0, message, value: { event: 'lead.accepted' } };
    commits.forBatch('t', 0).handled([message], [], [record], [underWay]);
    return new WeakRef(record);
  };
  const record = handOver();
  await new Promise((r) => setImmediate(r));
  gc();
  expect(record.deref()).toBeUndefined();
});

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
const bare = { on: () => undefined, events: { GROUP_JOIN: 'join', CRASH: 'crash' } } as unknown as Consumer;

it('keeps the offset of a record whose work is under way, not the record', async () => {
  const commits = offsetCommits({ group: 'g', maxUncommitted: 10 }, createLogger('silent'));
  commits.attach(bare);
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

// A consumer's offsets are committed shortly after its records are done, and a consumer at rest
// runs no commit timer at all.
describe('offset commits', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  const message = (offset: string) => ({ offset }) as KafkaMessage;
  const record = (offset: string) =>
    ({ topic: 'leadEvents', partition: 0, message: message(offset) }) as Decoded<unknown>;

  function consumer() {
    const commits: { topic: string; partition: number; offset: string }[][] = [];
    const fake = {
      events: { GROUP_JOIN: 'join', CRASH: 'crash' },
      on: () => () => undefined,
      commitOffsets: async (offsets: { topic: string; partition: number; offset: string }[]) => {
        commits.push(offsets);
      },
    };
    return { commits, consumer: fake as unknown as Consumer };
  }

  it('runs no timer at rest, and commits what is done, now or once recorded', async () => {
    const { commits, consumer: c } = consumer();
    const strategy = offsetCommits({ group: 'g' }, createLogger('silent'));
    strategy.attach(c);
    expect(jest.getTimerCount()).toBe(0);

    let recorded: () => void = () => undefined;
    const later = new Promise<void>((r) => (recorded = r));
    strategy.forBatch('t', 0).handled([message('5'), message('6')], [], [record('5'), record('6')], [undefined, later]);
    await jest.advanceTimersByTimeAsync(250);
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '6' }]]);
    expect(jest.getTimerCount()).toBe(0);

    recorded();
    await jest.advanceTimersByTimeAsync(250);
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '6' }], [{ topic: 't', partition: 0, offset: '7' }]]);
    await jest.advanceTimersByTimeAsync(5000);
    expect(commits).toHaveLength(2);
    expect(jest.getTimerCount()).toBe(0);
  });
});

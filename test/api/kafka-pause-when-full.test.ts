import { dispatcherDeps } from '../../src/role-deps';
import { startBatchConsumer, type BatchConsumer } from '../../src/shared/kafka/batch-consumer';
import { createLogger } from '../../src/shared/logger';
import { startRuntime, type Runtime } from '../../src/shared/runtime';
import type { DeliveryTask, LeadEvent } from '../../src/shared/schemas';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { dropTestData } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { until } from '../support/topic-probe';

// The dispatcher reads the retry tiers beside leads.events in one consumer. A tier partition whose
// tasks all wait (for room at a slow partner) has as much uncommitted as it may: it is paused, so it
// never holds one of the consumer's concurrent batches. Every partition of a tier full at once
// would otherwise take them all, and the lead events, every partner's, would wait behind them.
const config = testConfig({ ROLE: 'dispatcher' });
let rt: Runtime;
let consumer: BatchConsumer | null = null;

beforeAll(async () => {
  rt = await startRuntime(config, createLogger('silent'));
}, 60_000);

afterAll(async () => {
  await consumer?.stop();
  await rt?.close();
  await dropTestData(config);
});

it('pauses a full tier partition, and lead events keep flowing while every tier partition is full', async () => {
  const { producer, codec, topics } = rt;
  const partitions = (await rt.admin.fetchTopicMetadata({ topics: [topics.retry1] })).topics[0]!.partitions.length;
  const task = (n: number): DeliveryTask => ({
    delivery_id: `dl-f${n.toString(16)}`,
    event: leadEvent('pa-full', { lead_id: `le-${9100 + n}` }),
    last_error: 'http_503',
  });
  // Three tasks a partition: the first is never recorded, so each partition is full with one.
  const messages = await Promise.all(
    Array.from({ length: partitions * 3 }, async (_, n) => ({
      partition: n % partitions,
      value: await codec.encode('retry1', task(n)),
    })),
  );
  await producer.send({ topic: topics.retry1, messages });
  const tasksTaken: string[] = [];
  const handled: string[] = [];
  consumer = await startBatchConsumer<DeliveryTask | LeadEvent>(dispatcherDeps(rt).consumers, {
    group: 'pause-when-full',
    topics: ['retry1', 'leadEvents'],
    fromBeginning: true,
    commit: 'recorded',
    maxUncommitted: 1,
    chunkSize: 1,
    pauseWhenFull: (topic) => topic === 'retry1',
    handle: async (records, ctx) => {
      if (ctx.topic === 'leadEvents') {
        handled.push(...records.map((r) => (r.value as LeadEvent).event_id));
        return;
      }
      tasksTaken.push(...records.map((r) => (r.value as DeliveryTask).delivery_id));
      return records.map(() => new Promise<void>(() => undefined)); // waits for ever
    },
    undecodable: async () => undefined,
  });
  await until(async () => tasksTaken.length >= partitions, 20_000, 'a task of every tier partition taken');
  const events = Array.from({ length: 12 }, (_, n) =>
    leadEvent('pa-full', { lead_id: `le-${9200 + n}`, event_id: `le-${9200 + n}:0` }),
  );
  await publishLeadEvents(rt, events);
  await until(async () => events.every((e) => handled.includes(e.event_id)), 15_000, 'every lead event handled');
  // The full partitions took no more than the one task each they may have uncommitted.
  expect(tasksTaken).toHaveLength(partitions);
}, 60_000);

import { dispatcherDeps } from '../../src/role-deps';
import { startBatchConsumer, type BatchConsumer } from '../../src/shared/kafka/batch-consumer';
import { createLogger } from '../../src/shared/logger';
import { startRuntime, type Runtime } from '../../src/shared/runtime';
import type { DeliveryTask, LeadEvent } from '../../src/shared/schemas';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { dropTestData } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { until } from '../support/topic-probe';

// What the dispatcher's consumers hold of their partitions, and how long, is bounded.
const LIMIT = 64 * 1024;
const EVENTS = 60;
const BIG = 'x'.repeat(16 * 1024);
const config = testConfig({
  ROLE: 'dispatcher',
  DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION: String(LIMIT),
  DISPATCHER_FETCH_MAX_BYTES: String(8 * LIMIT),
});
let rt: Runtime;
let consumer: BatchConsumer | null = null;
let tiers: BatchConsumer | null = null;

beforeAll(async () => {
  rt = await startRuntime(config, createLogger('silent'));
}, 60_000);

afterAll(async () => {
  await consumer?.stop();
  await tiers?.stop();
  await rt?.close();
  await dropTestData(config);
});

// What a fetch of the dispatcher's consumers brings of a partition is bounded by
// DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION: a backlog of large events comes a few at a time, not a
// megabyte of them a partition, so what kafkajs holds of a backlog stays small.
it('brings a backlog of large events a partition at a time within the configured bytes', async () => {
  // One send each: every event its own record batch, so the broker may cut between any two.
  for (let i = 0; i < EVENTS; i++) await publishLeadEvents(rt, [leadEvent('pa-fetch', { external_lead_id: BIG })]);
  const batches: { partition: number; bytes: number }[] = [];
  consumer = await startBatchConsumer<LeadEvent>(dispatcherDeps(rt).consumers, {
    group: 'fetch-bytes',
    topics: ['leadEvents'],
    fromBeginning: true,
    chunkSize: 1000, // a chunk is the whole batch
    handle: async (records, ctx) => {
      const bytes = records.reduce((sum, r) => sum + (r.message.value?.length ?? 0), 0);
      batches.push({ partition: ctx.partition, bytes });
    },
    undecodable: async () => undefined,
  });
  await until(async () => batches.length > 0 && sum(batches) >= EVENTS * BIG.length, 30_000, 'every event handled');
  expect(Math.max(...batches.map((b) => b.bytes))).toBeLessThanOrEqual(LIMIT);
  // Not one event a fetch either: the bound is what it brings, not a trickle.
  expect(Math.max(...batches.map((b) => b.bytes))).toBeGreaterThan(LIMIT / 2);
}, 60_000);

// The dispatcher reads the retry tiers beside leads.events in one consumer. A tier partition whose
// tasks all wait (for room at a slow partner) has as much uncommitted as it may: it is paused, so it
// never holds one of the consumer's concurrent batches. Every partition of a tier full at once
// would otherwise take them all, and the lead events, every partner's, would wait behind them.
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
  tiers = await startBatchConsumer<DeliveryTask | LeadEvent>(dispatcherDeps(rt).consumers, {
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

const sum = (batches: { bytes: number }[]): number => batches.reduce((s, b) => s + b.bytes, 0);

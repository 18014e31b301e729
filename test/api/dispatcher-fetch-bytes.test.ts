import { dispatcherDeps } from '../../src/role-deps';
import { startBatchConsumer, type BatchConsumer } from '../../src/shared/kafka/batch-consumer';
import { createLogger } from '../../src/shared/logger';
import { startRuntime, type Runtime } from '../../src/shared/runtime';
import type { LeadEvent } from '../../src/shared/schemas';
import { leadEvent, publishLeadEvents } from '../support/lead-events';
import { dropTestData } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { until } from '../support/topic-probe';

// What a fetch of the dispatcher's consumers brings of a partition is bounded by
// DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION: a backlog of large events comes a few at a time, not a
// megabyte of them a partition, so what kafkajs holds of a backlog stays small.
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

beforeAll(async () => {
  rt = await startRuntime(config, createLogger('silent'));
}, 60_000);

afterAll(async () => {
  await consumer?.stop();
  await rt?.close();
  await dropTestData(config);
});

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

const sum = (batches: { bytes: number }[]): number => batches.reduce((s, b) => s + b.bytes, 0);

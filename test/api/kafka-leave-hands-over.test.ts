import { dispatcherDeps } from '../../src/role-deps';
import { startBatchConsumer, type BatchConsumer } from '../../src/shared/kafka/batch-consumer';
import { createLogger } from '../../src/shared/logger';
import { startRuntime, type Runtime } from '../../src/shared/runtime';
import type { LeadEvent } from '../../src/shared/schemas';
import { leadEvent } from '../support/lead-events';
import { dropTestData } from '../support/test-app';
import { testConfig } from '../support/test-config';
import { until } from '../support/topic-probe';

// kafkajs leaves the group when a consumer crashes (it disconnects, then restarts the consumer),
// which passes no graceful stop of ours. A member with work still under way must hand it over before
// it leaves, as before a join: otherwise its partitions go to another member at once, which reads
// from the committed offsets and does that work again beside it (a callback sent twice).
const config = testConfig({ ROLE: 'dispatcher' });
const WORK_MS = 1500;
let rt: Runtime;
const members: BatchConsumer[] = [];

beforeAll(async () => {
  rt = await startRuntime(config, createLogger('silent'));
}, 60_000);

afterAll(async () => {
  for (const m of members) await m.stop().catch(() => undefined);
  await rt?.close();
  await dropTestData(config);
});

// Who handled which event, and when the slow one's work ended.
interface Seen {
  member: 'x' | 'y';
  event: string;
  partition: number;
  at: number;
}

it('a member that leaves, as kafkajs makes it leave on a crash, hands its work over first: the next owner does not do it again', async () => {
  const seen: Seen[] = [];
  const work = new Set<Promise<void>>();
  let workDoneAt = 0;
  const start = (member: 'x' | 'y') =>
    startBatchConsumer<LeadEvent>(dispatcherDeps(rt).consumers, {
      group: 'leave-hands-over',
      topics: ['leadEvents'],
      commit: 'recorded',
      chunkSize: 1,
      handOver: async () => {
        await Promise.all([...work]);
      },
      handle: async (records, ctx) => {
        const now = Date.now();
        seen.push(...records.map((r) => ({ member, event: r.value.event_id, partition: ctx.partition, at: now })));
        // The slow event's work outlives its batch, as an HTTP attempt recorded later does.
        return records.map((r) => {
          if (member !== 'x' || !r.value.event_id.startsWith('slow')) return undefined;
          const done = new Promise<void>((resolve) =>
            setTimeout(() => {
              workDoneAt = Date.now();
              resolve();
            }, WORK_MS),
          );
          work.add(done);
          return done;
        });
      },
      undecodable: async () => undefined,
    });
  const { topics, codec, producer } = rt;
  const partitions = (await rt.admin.fetchTopicMetadata({ topics: [topics.leadEvents] })).topics[0]!.partitions.length;
  const send = async (event: string, partition: number) =>
    producer.send({
      topic: topics.leadEvents,
      messages: [{ partition, value: await codec.encode('leadEvents', leadEvent('pa-leave', { event_id: event })) }],
    });
  const x = await start('x');
  members.push(x);
  members.push(await start('y'));

  // Both members hold some partitions: an event on every one, until each was handled once by its owner
  // (a rebalance as y joins can hand one to the other meanwhile: the last owner counts).
  const ownerOf = new Map<number, 'x' | 'y'>();
  for (let round = 0; round < 20 && new Set(ownerOf.values()).size < 2; round++) {
    const before = seen.length;
    for (let p = 0; p < partitions; p++) await send(`warm-${round}-${p}`, p);
    await until(
      async () => seen.slice(before).filter((s) => s.event.startsWith(`warm-${round}-`)).length >= partitions,
      20_000,
      `round ${round} of warm-up events handled`,
    );
    for (const s of seen.slice(before)) if (s.event.startsWith(`warm-${round}-`)) ownerOf.set(s.partition, s.member);
  }
  const partition = [...ownerOf].find(([, m]) => m === 'x')?.[0];
  if (partition === undefined) throw new Error('x holds no partition');

  await send('slow', partition);
  await until(async () => seen.some((s) => s.event === 'slow'), 20_000, 'the slow event taken by x');
  // What kafkajs's crash handling does: disconnect, which stops the runner and leaves the group.
  await x.consumer.disconnect();
  members.splice(members.indexOf(x), 1);
  expect(workDoneAt).toBeGreaterThan(0); // x's work ended before it left

  await send('after', partition);
  await until(async () => seen.some((s) => s.event === 'after' && s.member === 'y'), 30_000, 'y took the partition');
  expect(seen.filter((s) => s.event === 'slow').map((s) => s.member)).toEqual(['x']);
}, 120_000);

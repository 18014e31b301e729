import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { ReadinessCheck } from '../shared/http/ops-routes';
import { createConsumer } from '../shared/kafka/client';
import { DecodeError } from '../shared/kafka/codec';
import { consumerReadiness } from '../shared/kafka/consumer-health';
import { RETRY_TIERS, type TopicKey } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import type { Runtime } from '../shared/runtime';
import type { DeliveryTask } from '../shared/schemas';
import type { DeliveryScheduler } from './delivery-scheduler';
import type { DispatcherMetrics } from './metrics';
import { dueAction } from './due-gate';
import { readTaskHeaders } from './delivery-task';

// A message due within this window is held in memory instead of pausing its partition. It must
// exceed one fetch round trip (FETCH_MAX_WAIT_MS plus latency), so that a partition resumed this
// long before the due time has its message back in hand before the due time.
const HOLD_WINDOW_MS = 1000;
const FETCH_MAX_WAIT_MS = 100;

export interface RetryConsumerDeps {
  rt: Runtime;
  scheduler: DeliveryScheduler;
  metrics: DispatcherMetrics;
  logger: Logger;
}

export interface RetryConsumer {
  consumer: Consumer;
  readiness: ReadinessCheck;
  stop(): Promise<void>;
}

interface PausedPartition {
  topic: string;
  partition: number;
  offset: string;
  timer: NodeJS.Timeout;
}

// Consumes the four retry tier topics. Each partition is in due order (one delay per topic), so when
// its head is not due the partition is paused, and resumed with a seek back to that message shortly
// before it is: other partitions keep flowing and the consumer keeps heartbeating meanwhile.
// Due tasks go to the scheduler; the delivery record decides whether anything is still to be sent.
export async function startRetryConsumer(deps: RetryConsumerDeps): Promise<RetryConsumer> {
  const { rt, logger } = deps;
  const consumer = createConsumer(rt.kafka, rt.config, 'dispatcher-retry', { maxWaitTimeInMs: FETCH_MAX_WAIT_MS });
  const readiness = consumerReadiness('dispatcher-retries', consumer);
  const paused = new Map<string, PausedPartition>();
  const held = new Set<NodeJS.Timeout>();
  let stopping = false;
  const tierOf = new Map<string, TopicKey>(RETRY_TIERS.map((k) => [rt.topics[k], k]));

  const resume = (p: PausedPartition, seek: boolean): void => {
    clearTimeout(p.timer);
    paused.delete(`${p.topic}:${p.partition}`);
    try {
      // Seek before resuming: kafkajs may never resume a partition paused before it consumed (#1599).
      if (seek) consumer.seek({ topic: p.topic, partition: p.partition, offset: p.offset });
      consumer.resume([{ topic: p.topic, partitions: [p.partition] }]);
    } catch (err) {
      // Not running (crashed, restarting): its next join fetches from the committed offset, this
      // uncommitted message included. From a timer, the throw would have ended the process.
      logger.warn({ topic: p.topic, partition: p.partition, err: (err as Error).message }, 'could not resume a retry tier partition');
    }
  };

  // A rebalance keeps kafkajs's pause flags: resume everything, seeking only where we still own the
  // partition. The head message comes back and is judged again.
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    for (const p of [...paused.values()]) resume(p, payload.memberAssignment[p.topic]?.includes(p.partition) ?? false);
  });
  // A crashed consumer forgets its pauses and restarts from its committed offsets: so do we.
  consumer.on(consumer.events.CRASH, () => {
    for (const p of paused.values()) clearTimeout(p.timer);
    paused.clear();
  });

  const hand = (task: DeliveryTask, dueAt: number): void => {
    if (stopping) return;
    const now = Date.now();
    if (dueAt > now) {
      // Timers may fire a millisecond early: never run before the due time.
      const timer = setTimeout(() => {
        held.delete(timer);
        hand(task, dueAt);
      }, dueAt - now);
      held.add(timer);
      return;
    }
    deps.scheduler.submit({ deliveryId: task.delivery_id, partnerId: task.event.partner_id, source: 'retry' });
  };

  const eachBatch = async ({ batch, resolveOffset, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> => {
    const { topic, partition } = batch;
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) break;
      const timing = readTaskHeaders(message.headers);
      const tier = tierOf.get(topic) ?? 'retry1';
      if (!timing) {
        deps.metrics.undecodable.inc({ topic: tier });
        logger.error({ topic, partition, offset: message.offset }, 'skipped a retry task without due-time headers');
        resolveOffset(message.offset);
        continue;
      }
      const action = dueAction(timing.dueAt, Date.now(), HOLD_WINDOW_MS);
      if (action.kind === 'pause') {
        if (stopping) break;
        consumer.pause([{ topic, partitions: [partition] }]);
        const entry: PausedPartition = { topic, partition, offset: message.offset, timer: setTimeout(() => resume(entry, true), action.resumeInMs) };
        paused.set(`${topic}:${partition}`, entry);
        break;
      }
      try {
        hand(await rt.codec.decode<DeliveryTask>(tier, message.value), timing.dueAt);
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        deps.metrics.undecodable.inc({ topic: tier });
        logger.error({ topic, partition, offset: message.offset, reason: err.reason }, 'skipped an undecodable retry task');
      }
      resolveOffset(message.offset);
    }
    await commitOffsetsIfNecessary();
  };

  await consumer.connect();
  await consumer.subscribe({ topics: RETRY_TIERS.map((k) => rt.topics[k]), fromBeginning: true });
  await consumer.run({ eachBatchAutoResolve: false, eachBatch });

  return {
    consumer,
    readiness,
    async stop() {
      stopping = true;
      const clearTimers = (): void => {
        for (const p of paused.values()) clearTimeout(p.timer);
        paused.clear();
        // Held tasks are already committed: their records stay queued and the sweeper finds them.
        for (const t of held) clearTimeout(t);
        held.clear();
      };
      clearTimers();
      await consumer.disconnect();
      clearTimers(); // whatever the last batch added
    },
  };
}

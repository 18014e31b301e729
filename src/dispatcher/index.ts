import type { RoleHandle } from '../shared/role';
import type { Runtime } from '../shared/runtime';
import { closeCallbackAgents } from './callback-sender';
import { DeliveryScheduler } from './delivery-scheduler';
import { DeliveryStore } from './delivery-store';
import { startSweeper } from './delivery-sweeper';
import { deliveryWorker } from './delivery-worker';
import { startEventConsumer } from './event-consumer';
import { dispatcherMetrics } from './metrics';
import { startRetryConsumer } from './retry-consumer';
import { retrySchedule } from './retry-schedule';

// Jobs one partner may have waiting in memory; beyond that they wait in MongoDB for the sweeper.
const MAX_QUEUED_PER_PARTNER = 1000;
// How overdue a queued delivery must be before the sweeper takes it from the retry topics' hands.
const SWEEP_GRACE_MS = 5000;

// The callback dispatcher: lead events in, signed callbacks out, with tiered retry topics, a dead
// topic and a delivery record per (event, partner) in MongoDB.
export async function startDispatcher(rt: Runtime): Promise<RoleHandle> {
  const logger = rt.logger.child({ role: 'dispatcher' });
  const cfg = rt.config.callbacks;
  const schedule = retrySchedule(cfg.retryDelaysS);
  const store = new DeliveryStore(rt.mongo.collections.deliveries, rt.locks);
  const metrics = dispatcherMetrics(rt.metrics, () => store.countByState());
  const scheduler = new DeliveryScheduler(
    { concurrency: cfg.concurrency, perPartnerConcurrency: cfg.perPartnerConcurrency, maxQueuedPerPartner: MAX_QUEUED_PER_PARTNER },
    deliveryWorker({ rt, store, schedule, metrics, logger }),
    (err, job) => logger.error({ delivery_id: job.deliveryId, err: (err as Error).message }, 'delivery attempt failed; the sweeper will retry it'),
  );

  const retries = await startRetryConsumer({ rt, scheduler, metrics, logger });
  const events = await startEventConsumer({ rt, store, scheduler, metrics, maxAttempts: schedule.maxAttempts, logger })
    .catch(async (err: unknown) => {
      await retries.stop();
      throw err;
    });
  const sweeper = startSweeper({ store, scheduler, intervalMs: cfg.sweepIntervalMs, graceMs: SWEEP_GRACE_MS, logger });

  return {
    name: 'dispatcher',
    readiness: [events.readiness, retries.readiness],
    // Stop taking work, then let the attempts under way finish (each is bounded by the timeout).
    async stop() {
      await sweeper.stop();
      await Promise.allSettled([events.consumer.disconnect(), retries.stop()]);
      await scheduler.drain();
      await closeCallbackAgents();
    },
  };
}

import type { RoleHandle } from '../shared/role';
import type { Runtime } from '../shared/runtime';
import { BlockStore } from './block-store';
import { closeCallbackAgents } from './callback-sender';
import { CallbackAttempts } from './delivery-attempt';
import { DeliveryScheduler } from './delivery-scheduler';
import { DeliveryStore } from './delivery-store';
import { DeliveryTopics } from './delivery-task';
import { startEventConsumer } from './event-consumer';
import { LeadOwner } from './lead-owner';
import { dispatcherMetrics } from './metrics';
import { RecordBatcher } from './record-batcher';
import { startRetryConsumer } from './retry-consumer';
import { retrySchedule } from './retry-schedule';

// The callback dispatcher: lead events in, signed callbacks out, with tiered retry topics, a dead
// topic and a delivery record per (event, partner) in MongoDB.
export async function startDispatcher(rt: Runtime): Promise<RoleHandle> {
  const logger = rt.logger.child({ role: 'dispatcher' });
  const cfg = rt.config.callbacks;
  const schedule = retrySchedule(cfg.retryDelaysS);
  const store = new DeliveryStore(rt.mongo.collections.deliveries);
  const topics = new DeliveryTopics({ producer: rt.producer, codec: rt.codec, topics: rt.topics });
  const batcher = new RecordBatcher(store, logger);
  let owner: LeadOwner | null = null;
  const metrics = dispatcherMetrics(rt.metrics, () => owner?.blockedLeads() ?? 0);
  const scheduler = new DeliveryScheduler(
    { concurrency: cfg.concurrency, perPartnerConcurrency: cfg.perPartnerConcurrency, maxQueuedPerPartner: cfg.maxQueuedPerPartner },
    (err, job) => logger.error({ delivery_id: job.deliveryId, err: (err as Error).message }, 'delivery attempt failed; its offset stays uncommitted'),
  );
  const attempts = new CallbackAttempts({ partners: rt.partners, callbacks: cfg, serviceName: rt.config.serviceName, schedule, topics, metrics, logger });
  owner = new LeadOwner({
    partners: rt.partners, store, blocks: new BlockStore(rt.mongo.collections.deliveryBlocks), batcher, scheduler, attempts, topics,
    schedule, metrics, logger,
  });
  const kafka = { kafka: rt.kafka, config: rt.config, codec: rt.codec, topicNames: rt.topics, logger, admin: rt.admin };

  const retries = await startRetryConsumer(kafka, { store, scheduler, attempts, topics, schedule, metrics, logger });
  const events = await startEventConsumer(kafka, owner, metrics, logger).catch(async (err: unknown) => {
    await retries.stop();
    throw err;
  });

  return {
    name: 'dispatcher',
    readiness: [{ ...events.readiness, name: 'dispatcher-events' }, { ...retries.readiness, name: 'dispatcher-retries' }],
    // Stop taking work and commit what is recorded; then let the attempts under way finish (each
    // is bounded by the timeout) and their records be written: a restart finds them and sends
    // nothing twice.
    async stop() {
      const draining = scheduler.drain();
      await Promise.allSettled([events.stop(), retries.stop()]);
      await draining;
      await batcher.drain();
      await closeCallbackAgents();
    },
  };
}

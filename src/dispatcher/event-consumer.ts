import type { Consumer } from 'kafkajs';
import type { ReadinessCheck } from '../shared/http/ops-routes';
import { createConsumer } from '../shared/kafka/client';
import { DecodeError } from '../shared/kafka/codec';
import { consumerReadiness } from '../shared/kafka/consumer-health';
import type { Logger } from '../shared/logger';
import type { Runtime } from '../shared/runtime';
import type { LeadEvent } from '../shared/schemas';
import { callbackEligibility } from './callback-eligibility';
import type { DeliveryScheduler } from './delivery-scheduler';
import { leaseEnd, type DeliveryStore } from './delivery-store';
import type { DispatcherMetrics } from './metrics';

export interface EventConsumerDeps {
  rt: Runtime;
  store: DeliveryStore;
  scheduler: DeliveryScheduler;
  metrics: DispatcherMetrics;
  maxAttempts: number;
  logger: Logger;
}

// Turns each lead event into a delivery record for its partner and offers it to the scheduler. The
// HTTP attempt is never awaited here, so a slow partner cannot hold up the topic. The offset is
// committed once the record exists; from then on MongoDB (and the sweeper) carries the delivery.
export async function startEventConsumer(deps: EventConsumerDeps): Promise<{ consumer: Consumer; readiness: ReadinessCheck }> {
  const { rt, logger } = deps;
  const consumer = createConsumer(rt.kafka, rt.config, 'dispatcher');
  const readiness = consumerReadiness('dispatcher-events', consumer);
  await consumer.connect();
  // From the beginning for a new group: an event published before the first start is still owed.
  await consumer.subscribe({ topics: [rt.topics.leadEvents], fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: 6,
    eachMessage: async ({ partition, message }) => {
      let event: LeadEvent;
      try {
        event = await rt.codec.decode<LeadEvent>('leadEvents', message.value);
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        deps.metrics.undecodable.inc({ topic: 'lead_events' });
        logger.error({ partition, offset: message.offset, reason: err.reason }, 'skipped an undecodable lead event');
        return;
      }
      await accept(deps, event);
    },
  });
  return { consumer, readiness };
}

async function accept(deps: EventConsumerDeps, event: LeadEvent): Promise<void> {
  const { rt, store, scheduler, metrics, logger } = deps;
  const partner = await rt.partners.byId(event.partner_id);
  const eligibility = partner ? callbackEligibility(partner, event.event) : 'unknown_partner';
  if (eligibility !== 'send') {
    metrics.deliveries.inc({ event: event.event, outcome: 'skipped', partner_id: event.partner_id });
    logger.debug({ event_id: event.event_id, partner_id: event.partner_id, reason: eligibility }, 'no callback for this event');
    return;
  }
  const now = new Date();
  const { id, lease } = await store.create(event, deps.maxAttempts, now, leaseEnd(now, rt.config.callbacks.timeoutMs));
  if (lease) {
    scheduler.submit({ deliveryId: id, partnerId: event.partner_id, source: 'event', lease });
    return;
  }
  // A repeat of a known event: nothing to do unless the first copy's attempt never ran (a crash),
  // which the sweeper recovers once that lease has expired.
  logger.debug({ event_id: event.event_id, delivery_id: id }, 'lead event seen before');
}

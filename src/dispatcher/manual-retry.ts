import type { Runtime } from '../shared/runtime';
import { DeliveryStore } from './delivery-store';
import { publishTask } from './delivery-task';
import { retrySchedule } from './retry-schedule';

export type ManualRetryResult = 'requeued' | 'not_found' | 'not_dead';

// A manager's retry of a dead delivery (spec 6.3: recovery is by request to the manager): a fresh
// round of attempts, due now, recorded in manual_retries. Only dead deliveries can be retried, so a
// delivery is never driven twice. Runs in any role's process: the task goes onto the first retry
// topic (due now) for whichever dispatcher consumes it, and the sweeper is the fallback.
export async function retryDelivery(rt: Runtime, deliveryId: string, by: string): Promise<ManualRetryResult> {
  const store = new DeliveryStore(rt.mongo.collections.deliveries, rt.locks);
  const now = new Date();
  const doc = await store.requeueDead(deliveryId, retrySchedule(rt.config.callbacks.retryDelaysS).maxAttempts, by, now);
  if (!doc) return (await store.exists(deliveryId)) ? 'not_dead' : 'not_found';
  try {
    await publishTask(rt, 'retry1', { delivery_id: doc._id, event: doc.event }, { dueAt: now.getTime(), attempt: 1 });
  } catch (err) {
    rt.logger.warn({ delivery_id: doc._id, err: (err as Error).message }, 'manual retry queued; the sweeper will pick it up');
  }
  return 'requeued';
}

// Every dead delivery of one partner; returns how many were requeued.
export async function retryDeadDeliveries(rt: Runtime, partnerId: string, by: string): Promise<number> {
  const store = new DeliveryStore(rt.mongo.collections.deliveries, rt.locks);
  let requeued = 0;
  for (const id of await store.deadIds(partnerId)) {
    if ((await retryDelivery(rt, id, by)) === 'requeued') requeued++;
  }
  return requeued;
}

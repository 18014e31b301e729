import type { Logger } from '../shared/logger';
import { everyInterval, type PeriodicTask } from '../shared/periodic-task';
import type { DeliveryScheduler } from './delivery-scheduler';
import type { DeliveryStore } from './delivery-store';

const BATCH = 500;

// Offers the scheduler every queued delivery that is overdue and not leased: the first attempt
// after a crash between record and attempt, a retry whose topic message was lost or refused by a
// full queue, a manager's manual retry. The grace leaves the normal path (retry topics) time to act.
export function startSweeper(opts: {
  store: DeliveryStore;
  scheduler: DeliveryScheduler;
  intervalMs: number;
  graceMs: number;
  logger: Logger;
}): PeriodicTask {
  return everyInterval('delivery-sweep', opts.intervalMs, async () => {
    const overdue = await opts.store.overdue(new Date(), opts.graceMs, BATCH);
    for (const d of overdue) opts.scheduler.submit({ deliveryId: d._id, partnerId: d.partner_id, source: 'sweep' });
  }, opts.logger);
}

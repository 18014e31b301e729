import type { Logger } from '../../shared/logger';
import type { DeliveryScheduler } from '../delivery-scheduler';
import type { EndpointHold } from '../endpoint-hold';
import type { CarryOut, Lead } from './carry-out';
import type { OwnedPartitions } from './owned-partitions';

// Leads whose blocker is held for its paused (or tripped) endpoint, and their release when the
// endpoint is released: resumed, its circuit's probe due, or its circuit closed.
export class ParkedRelease {
  private readonly releasing = new Set<string>(); // endpoints whose parked leads are being released

  constructor(
    private readonly deps: { hold: EndpointHold; scheduler: DeliveryScheduler; logger: Logger },
    private readonly carryOut: CarryOut,
    private readonly current: () => OwnedPartitions,
  ) {}

  park({ a, endpoint, key, partition }: Lead): void {
    a.parked.add(endpoint, key, partition);
    if (!this.deps.hold.holds(endpoint)) this.release(endpoint); // released meanwhile
  }

  // The parked leads go again, longest-held first, as many at a time as the endpoint's queue in the
  // scheduler has room for, so at the endpoint's own pace (the first alone: it may be the circuit's
  // probe). Each lead's held deliveries then follow in event order. Stops once the endpoint holds
  // again (paused, or the probe under way), or at a hand-over (the next assignment reads the parked
  // leads back from their blocks).
  release(endpoint: string): void {
    if (this.releasing.has(endpoint)) return;
    this.releasing.add(endpoint);
    const a = this.current();
    const { hold, scheduler, logger } = this.deps;
    const going = () => !hold.holds(endpoint) && a.work.open && !scheduler.stopping;
    const resume = (next: { key: string; partition: number }) =>
      this.carryOut
        .resume({ a, endpoint, ...next })
        .catch((err: unknown) =>
          logger.error({ key: next.key, err: (err as Error).message }, 'could not resume a lead'),
        );
    const releasing = (async () => {
      for (let first = true; going(); first = false) {
        await scheduler.untilRoom(endpoint);
        const leads = going() ? a.parked.take(endpoint, first ? 1 : Math.max(1, scheduler.room(endpoint))) : [];
        if (leads.length === 0) break;
        await Promise.all(leads.map(resume));
      }
    })().finally(() => this.releasing.delete(endpoint));
    this.carryOut.start(a, releasing, { endpoint }, 'could not release the parked leads of an endpoint');
  }
}

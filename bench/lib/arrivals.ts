import type { Arrival } from '../receiver';
import { sleep } from './env';
import type { Helper } from './roles';

// Reads the receiver's arrivals every everyMs until done() accepts them or the deadline (epoch ms)
// has passed; returns the last ones read.
export async function waitForArrivals(
  receiver: Helper,
  done: (arrivals: Arrival[]) => boolean,
  deadline: number,
  everyMs: number,
): Promise<Arrival[]> {
  for (;;) {
    const arrivals = await receiver.request<Arrival[]>({ type: 'arrivals' });
    if (done(arrivals) || Date.now() > deadline) return arrivals;
    await sleep(everyMs);
  }
}

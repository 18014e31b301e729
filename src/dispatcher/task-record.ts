import type { DeliveryDoc } from '../shared/mongo/delivery-doc';
import { untilDone } from '../shared/retriable';
import type { Logger } from '../shared/logger';
import type { TaskTiming } from './delivery-task';
import type { DeliveryStore } from './delivery-store';
import type { DispatcherMetrics } from './metrics';

// How long a task waits for the record of the attempt before it (published after the task) to be
// written, before it gives up: its owner died, and the replayed attempt publishes a task of its own.
const RECORD_WAIT_MS = 60_000;
// A record written by another process is read again after this, then after twice as long each time.
const RECORD_FIRST_READ_AGAIN_MS = 1000;

// What a record a due task reads says of the attempt before it: written, not written yet
// ('missing'), or written without that attempt yet ('earlier_attempt'). Pure.
export function recordLag(doc: DeliveryDoc | null, attempt: number): 'missing' | 'earlier_attempt' | null {
  if (!doc) return 'missing';
  return doc.state === 'queued' && doc.attempts_made < attempt - 1 ? 'earlier_attempt' : null;
}

// A delivery's record (gathered with others' reads, DeliveryStore.get), a failed read tried again.
export const readRecord = (deps: { store: DeliveryStore; logger: Logger }, id: string): Promise<DeliveryDoc | null> =>
  untilDone(
    () => deps.store.get(id),
    (err, attempt) =>
      deps.logger.warn(
        { delivery_id: id, attempt, err: (err as Error).message },
        'could not read a delivery; trying again',
      ),
  );

// The record as this task's attempt needs it. A task is published before the record of the attempt
// that made it is written, so on a loaded store the record may lag behind: the task waits for its
// write (bounded), and each wait is counted by why. A write in this process (the lead's owner's) wakes
// it at once; one by a former owner (a rebalance in between) is read at growing intervals, a handful
// of reads in all. Reads are gathered with others (DeliveryStore.get).
export async function recordFor(
  deps: { store: DeliveryStore; logger: Logger; metrics: Pick<DispatcherMetrics, 'recordWaits'> },
  id: string,
  timing: TaskTiming,
  stopping: () => boolean,
): Promise<DeliveryDoc | null> {
  const { store, metrics } = deps;
  const deadline = Date.now() + RECORD_WAIT_MS;
  for (let waitMs = RECORD_FIRST_READ_AGAIN_MS; ; waitMs *= 2) {
    // Listened for before the read: a write landing between the read and the wait is not missed.
    const wait = store.signals.next(id, Math.min(waitMs, Math.max(0, deadline - Date.now())));
    const doc = await readRecord(deps, id);
    const lag = recordLag(doc, timing.attempt);
    if (!lag || Date.now() > deadline || stopping()) {
      wait.cancel();
      return doc;
    }
    metrics.recordWaits.inc({ reason: lag });
    await wait.written;
  }
}

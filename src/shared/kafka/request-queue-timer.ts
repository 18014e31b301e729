import { kafkajsInternal } from './kafkajs-internals';
// kafkajs 2.2.4 (frozen: no release since 2023) re-arms a "check pending requests" timer after every
// check, even with nothing pending and no throttle: the delay is then `-1 - Date.now()`, which Node
// runs after 1 ms (Node 24 also prints a TimeoutNegativeWarning). So every broker connection that
// ever got an answer runs a 1 ms timer loop for the life of the process, and every role wakes a
// thousand times a second doing nothing (tulios/kafkajs#1704, #1751; the fix below is the one
// proposed there). With nothing pending and no throttle there is nothing to check later: push()
// sends at once or queues and schedules a check, and every answer checks the queue again. Patched
// once, at load, like hand-over.ts patches the consumer group.
interface RequestQueue {
  throttledUntil: number;
  pending: unknown[];
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  scheduleCheckPendingRequests(): void;
  checkPendingRequests(): void;
}

const CHECK_PENDING_REQUESTS_INTERVAL = 10; // kafkajs's own, when requests wait for an in-flight slot

// Whether kafkajs's queue is throttled: kafkajs keeps "not throttled" as a time of -1, read here as
// none and never as a time to wait for.
export type Throttle = { kind: 'none' } | { kind: 'until'; at: number };

export const throttleOf = (throttledUntil: number, now: number): Throttle =>
  throttledUntil > now ? { kind: 'until', at: throttledUntil } : { kind: 'none' };

// In how many ms the queue checks its pending requests again; null: no check is due.
export function checkPendingInMs(pending: number, throttle: Throttle, now = Date.now()): number | null {
  if (throttle.kind === 'until' && throttle.at > now) return throttle.at - now;
  return pending > 0 ? CHECK_PENDING_REQUESTS_INTERVAL : null;
}

const RequestQueueClass = kafkajsInternal<{ prototype: RequestQueue }>('network/requestQueue');
RequestQueueClass.prototype.scheduleCheckPendingRequests = function scheduleOnlyWhenDue(this: RequestQueue) {
  if (this.throttleCheckTimeoutId) return;
  const now = Date.now();
  const inMs = checkPendingInMs(this.pending.length, throttleOf(this.throttledUntil, now), now);
  if (inMs === null) return;
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null;
    this.checkPendingRequests();
  }, inMs);
};

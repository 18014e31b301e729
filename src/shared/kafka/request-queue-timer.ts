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

const RequestQueueClass = kafkajsInternal<{ prototype: RequestQueue }>('network/requestQueue');
RequestQueueClass.prototype.scheduleCheckPendingRequests = function scheduleOnlyWhenDue(this: RequestQueue) {
  if (this.throttleCheckTimeoutId) return;
  const throttledForMs = this.throttledUntil - Date.now();
  if (this.pending.length === 0 && throttledForMs <= 0) return;
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    throttledForMs > 0 ? throttledForMs : CHECK_PENDING_REQUESTS_INTERVAL,
  );
};

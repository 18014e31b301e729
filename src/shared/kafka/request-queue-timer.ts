import { kafkajsInternal } from './kafkajs-internals';
// kafkajs 2.2.4 (frozen: no release since 2023) re-arms a "check pending requests" timer after every
// check, even with nothing pending and no throttle: the delay is then `-1 - Date.now()`, which Node
// runs after 1 ms (Node 24 also prints a TimeoutNegativeWarning). So every broker connection that
// ever got an answer runs a 1 ms timer loop for the life of the process, and every role wakes a
// thousand times a second doing nothing (tulios/kafkajs#1704, #1751; the fix below is the one
// proposed there). With nothing pending and no throttle there is nothing to check later: push()
// sends at once or queues and schedules a check, and every answer checks the queue again. Patched
// once, at load, like hand-over.ts patches the consumer group.
//
// kafkajs also looks for timed-out requests on every connection every 100 ms (a setInterval from the
// connection's start to its end), whether a request is in flight or not: the consumers' idle
// connections woke their process ten times a second each. Here one timer per connection waits for
// the earliest deadline of the requests in flight, and none runs while nothing is in flight.
interface SocketRequest {
  sentAt: number | null;
  requestTimeout: number;
  timeoutRequest(): void;
}
interface RequestQueue {
  throttledUntil: number;
  pending: unknown[];
  inflight: Map<number, SocketRequest>;
  enforceRequestTimeout: boolean;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  requestTimeoutIntervalId?: NodeJS.Timeout | null; // kafkajs's name; a timeout here
  isConnected(): boolean;
  destroy(): void;
  sendSocketRequest(request: SocketRequest): void;
  scheduleRequestTimeoutCheck(): void;
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

// In how many ms the earliest of these requests (sent at, timeout) times out, 0 if one has; null: none.
export function timeoutCheckInMs(
  inflight: Iterable<{ sentAt: number | null; requestTimeout: number }>,
  now = Date.now(),
): number | null {
  let earliest: number | null = null;
  for (const r of inflight) {
    if (r.sentAt === null) continue;
    const deadline = r.sentAt + r.requestTimeout;
    if (earliest === null || deadline < earliest) earliest = deadline;
  }
  return earliest === null ? null : Math.max(0, earliest - now);
}

// Timeout checks are on from the connection's start (scheduleRequestTimeoutCheck) until destroy().
const CHECKING = Symbol('timeout checks on');
const DUE = Symbol('timeout check due at');
type Checked = RequestQueue & { [CHECKING]?: boolean; [DUE]?: number };
const proto = RequestQueueClass.prototype as Checked;
const destroy = proto.destroy;
const sendSocketRequest = proto.sendSocketRequest;

// Arms the check for the earliest deadline in flight, unless one is armed no later than that.
function checkTimeoutsLater(queue: Checked): void {
  if (!queue[CHECKING]) return;
  const now = Date.now();
  const inMs = timeoutCheckInMs(queue.inflight.values(), now);
  if (inMs === null) return;
  if (queue.requestTimeoutIntervalId && (queue[DUE] ?? Infinity) <= now + inMs) return;
  if (queue.requestTimeoutIntervalId) clearTimeout(queue.requestTimeoutIntervalId);
  queue[DUE] = now + inMs;
  queue.requestTimeoutIntervalId = setTimeout(() => {
    queue.requestTimeoutIntervalId = null;
    const at = Date.now();
    queue.inflight.forEach((r) => {
      if (r.sentAt !== null && at - r.sentAt > r.requestTimeout) r.timeoutRequest();
    });
    if (!queue.isConnected()) queue.destroy();
    else checkTimeoutsLater(queue);
  }, inMs + 1);
}

proto.scheduleRequestTimeoutCheck = function checkTimeoutsWhileInFlight(this: Checked) {
  if (!this.enforceRequestTimeout) return;
  this.destroy();
  this[CHECKING] = true;
  checkTimeoutsLater(this);
};
proto.destroy = function destroyTimers(this: Checked) {
  destroy.call(this);
  this.requestTimeoutIntervalId = null;
  this[CHECKING] = false;
};
proto.sendSocketRequest = function sendThenCheckTimeouts(this: Checked, request: SocketRequest) {
  sendSocketRequest.call(this, request);
  checkTimeoutsLater(this);
};

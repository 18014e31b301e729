// The retry policy of callbacks, pure and in one place: what an attempt gave (attempt-result), how
// it counts and what follows (delivery-outcome), when the next attempt may run and in which retry
// topic it waits (retry-schedule), and the wait a partner asked for (retry-after). The clock is
// always passed in.
export {
  failedAttempt,
  failureText,
  type AttemptFailure,
  type AttemptFailureKind,
  type AttemptResult,
  type RecordedAttempt,
} from './attempt-result';
export {
  classifyAttempt,
  decideAfterAttempt,
  type AttemptVerdict,
  type DeliveryCounters,
  type DeliveryDecision,
} from './delivery-outcome';
export { RETRY_AFTER_STATUSES, retryAfterMs } from './retry-after';
export { retrySchedule, type RetrySchedule, type RetryWait } from './retry-schedule';

import type { TopicKey } from '../../shared/kafka/topics';
import type { AttemptFailureKind, AttemptResult } from './attempt-result';
import type { RetrySchedule } from './retry-schedule';

// How an attempt counts (spec 6.3): 2xx delivered; 5xx, 408, 429, timeout and connection errors
// are worth retrying; any other answer (3xx: redirects are not followed, other 4xx) and a refused
// destination are "permanent": one more retry only. A refused payload can never be sent: dead now.
export type AttemptVerdict = 'delivered' | 'retriable' | 'permanent' | 'unsendable';

const FAILURE_VERDICTS: Record<AttemptFailureKind, AttemptVerdict> = {
  timeout: 'retriable',
  connection_error: 'retriable',
  address_refused: 'permanent',
  https_required: 'permanent',
  invalid_url: 'permanent',
  no_callback_url: 'permanent',
  no_postback_url: 'permanent',
  payload_refused: 'unsendable',
  unpreparable: 'unsendable',
  internal_unavailable: 'retriable',
  withheld: 'retriable', // never recorded: the next owner of the work sends it
};

export function classifyAttempt(result: Pick<AttemptResult, 'httpStatus' | 'failure'>): AttemptVerdict {
  const status = result.httpStatus;
  if (status !== null) {
    if (status >= 200 && status < 300) return 'delivered';
    if (status === 408 || status === 429 || status >= 500) return 'retriable';
    return 'permanent';
  }
  return result.failure ? FAILURE_VERDICTS[result.failure.kind] : 'retriable';
}

export interface DeliveryCounters {
  attemptsMade: number; // in the current round (a manual retry starts a new round)
  attemptsLeft: number;
}

// A queued delivery after one more attempt: delivered, queued again for a later attempt, or dead.
export type DeliveryDecision =
  | { state: 'delivered'; attemptsMade: number; attemptsLeft: 0 }
  | { state: 'queued'; attemptsMade: number; attemptsLeft: number; nextAttemptAt: number; tier: TopicKey }
  | { state: 'dead'; attemptsMade: number; attemptsLeft: 0 };

export function decideAfterAttempt(
  before: DeliveryCounters,
  verdict: AttemptVerdict,
  nowMs: number,
  schedule: RetrySchedule,
  retryAfterMs: number | null = null,
): DeliveryDecision {
  const attemptsMade = before.attemptsMade + 1;
  if (verdict === 'delivered') return { state: 'delivered', attemptsMade, attemptsLeft: 0 };
  let attemptsLeft = before.attemptsLeft - 1;
  if (verdict === 'permanent') attemptsLeft = Math.min(attemptsLeft, 1);
  if (verdict === 'unsendable' || attemptsLeft <= 0 || attemptsMade >= schedule.maxAttempts) {
    return { state: 'dead', attemptsMade, attemptsLeft: 0 };
  }
  const wait = schedule.waitBefore(attemptsMade + 1, retryAfterMs);
  return { state: 'queued', attemptsMade, attemptsLeft, nextAttemptAt: nowMs + wait.delayMs, tier: wait.tier };
}

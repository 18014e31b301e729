// When to try a request again, as a pure function of its answer: only what is safe to repeat (no
// answer at all, 429, 503 and 409 idempotency_key_in_use, all with the same Idempotency-Key), never
// earlier than Retry-After, with jittered exponential backoff otherwise, and never past the deadline.
export interface RetryPolicy {
  deadlineMs: number; // the whole call, every attempt and wait included
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { deadlineMs: 30_000, baseDelayMs: 500, maxDelayMs: 8_000 };

export interface Answer {
  status: number | null; // null: no answer (network error, timeout)
  error: string | null; // the answer's error code, if any
  retryAfter: string | null;
}

export function isRetryable(a: Answer): boolean {
  return a.status === null || a.status === 429 || a.status === 503 || a.error === 'idempotency_key_in_use';
}

// Retry-After in seconds, from its seconds or HTTP-date form; null when absent or unreadable.
export function retryAfterSeconds(value: string | null, nowMs: number): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

// The wait before attempt `attempt + 1`, or null when the answer is final or the wait would pass the deadline.
export function nextWaitMs(
  a: Answer,
  attempt: number,
  remainingMs: number,
  policy: RetryPolicy,
  random: number,
  nowMs: number,
): number | null {
  if (!isRetryable(a)) return null;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const asked = retryAfterSeconds(a.retryAfter, nowMs);
  // Jitter only ever adds to what was asked, so many clients told the same second do not come back together.
  const wait = asked === null ? backoff / 2 + (random * backoff) / 2 : asked * 1000 + random * Math.min(1000, backoff);
  return wait < remainingMs ? Math.round(wait) : null;
}

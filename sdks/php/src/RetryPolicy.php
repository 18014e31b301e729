<?php

declare(strict_types=1);

namespace LeadIntake;

/**
 * When to try a request again, as a pure function of its answer: only what is safe to repeat (no answer at
 * all, 429, 503 and 409 idempotency_key_in_use, all with the same Idempotency-Key), never earlier than
 * Retry-After, with jittered exponential backoff otherwise, and never past the deadline.
 */
final class RetryPolicy
{
    public function __construct(
        public readonly float $deadlineS = 30.0, // the whole call, every attempt and wait included
        public readonly float $baseDelayS = 0.5,
        public readonly float $maxDelayS = 8.0,
    ) {
    }

    public static function isRetryable(?int $status, ?string $error): bool
    {
        return $status === null || $status === 429 || $status === 503 || $error === 'idempotency_key_in_use';
    }

    /** Retry-After in seconds, from its seconds or HTTP-date form; null when absent or unreadable. */
    public static function retryAfterSeconds(?string $value, float $nowS): ?int
    {
        $value = trim((string) $value);
        if ($value === '') {
            return null;
        }
        if (ctype_digit($value)) {
            return (int) $value;
        }
        $at = strtotime($value);
        return $at === false ? null : max(0, (int) ceil($at - $nowS));
    }

    /** The wait before attempt $attempt + 1, or null when the answer is final or the wait would pass the deadline. */
    public function nextWaitS(?int $status, ?string $error, ?string $retryAfter, int $attempt, float $remainingS, float $random, float $nowS): ?float
    {
        if (!self::isRetryable($status, $error)) {
            return null;
        }
        $backoff = min($this->maxDelayS, $this->baseDelayS * 2 ** ($attempt - 1));
        $asked = self::retryAfterSeconds($retryAfter, $nowS);
        // Jitter only ever adds to what was asked, so many clients told the same second do not come back together.
        $wait = $asked === null ? $backoff / 2 + $random * $backoff / 2 : $asked + $random * min(1.0, $backoff);
        return $wait < $remainingS ? $wait : null;
    }
}

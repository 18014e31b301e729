"""When to try a request again, as a pure function of its answer: only what is safe to repeat (no answer
at all, 429, 503 and 409 idempotency_key_in_use, all with the same Idempotency-Key), never earlier than
Retry-After, with jittered exponential backoff otherwise, and never past the deadline."""
from __future__ import annotations

import email.utils
import math
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class RetryPolicy:
    deadline_s: float = 30.0  # the whole call, every attempt and wait included
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0


@dataclass(frozen=True)
class Answer:
    status: Optional[int]  # None: no answer (network error, timeout)
    error: Optional[str] = None  # the answer's error code, if any
    retry_after: Optional[str] = None


def is_retryable(a: Answer) -> bool:
    return a.status is None or a.status in (429, 503) or a.error == "idempotency_key_in_use"


def retry_after_seconds(value: Optional[str], now_s: float) -> Optional[int]:
    """Retry-After in seconds, from its seconds or HTTP-date form; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    if value.strip().isdigit():
        return int(value.strip())
    try:
        at = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0, math.ceil(at - now_s))


def next_wait_s(a: Answer, attempt: int, remaining_s: float, policy: RetryPolicy, random: float, now_s: float) -> Optional[float]:
    """The wait before attempt ``attempt + 1``, or None when the answer is final or the wait would pass the deadline."""
    if not is_retryable(a):
        return None
    backoff = min(policy.max_delay_s, policy.base_delay_s * 2 ** (attempt - 1))
    asked = retry_after_seconds(a.retry_after, now_s)
    # Jitter only ever adds to what was asked, so many clients told the same second do not come back together.
    wait = backoff / 2 + random * backoff / 2 if asked is None else asked + random * min(1.0, backoff)
    return wait if wait < remaining_s else None

import hashlib
import hmac
import time

TOLERANCE_S = 300  # the X-Timestamp drift we accept, as the service does for your requests


def verify_callback(secret: str, headers: dict, raw_body: bytes, seen_event_ids: set, now_s: float | None = None) -> str:
    """headers: names in lower case; raw_body: the exact bytes received, before any JSON parsing.
    seen_event_ids: X-Event-Id values already handled (keep them in your database, e.g. a unique key).
    Returns "ok", "bad_signature", "stale" or "duplicate"."""
    expected = hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest().encode()
    given = headers.get("x-signature", "").removeprefix("sha256=").lower().encode()
    # Constant time: never compare signatures with == (it leaks how many characters matched).
    if not hmac.compare_digest(given, expected):
        return "bad_signature"
    timestamp = headers.get("x-timestamp", "")
    now = time.time() if now_s is None else now_s
    if not timestamp.isdigit() or abs(now - int(timestamp)) > TOLERANCE_S:
        return "stale"
    event_id = headers.get("x-event-id", "")
    if event_id in seen_event_ids:
        return "duplicate"  # a retry of one we have: answer 2xx, do nothing
    seen_event_ids.add(event_id)
    return "ok"

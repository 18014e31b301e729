from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from .errors import LeadIntakeError

Secrets = Union[str, Sequence[str]]


@dataclass(frozen=True)
class VerifiedCallback:
    event_id: str  # X-Event-Id / webhook-id: drop repeats by it
    event: str
    timestamp: int
    payload: Dict[str, Any]


def verify_callback(
    headers: Mapping[str, str], raw_body: bytes, secrets: Secrets, tolerance_s: float = 300, now_s: Optional[float] = None
) -> VerifiedCallback:
    """Verifies a callback in either scheme we sign with: ours (X-Signature over the body, X-Timestamp) or
    Standard Webhooks (webhook-signature over "id.timestamp.body", one signature per secret during a
    rotation's grace). ``secrets``: the callback secret, or several while you switch between two.
    Raises LeadIntakeError invalid_signature or invalid_timestamp; the signature is checked first."""
    h = {k.lower(): v for k, v in headers.items()}
    keys = [secrets] if isinstance(secrets, str) else list(secrets)
    standard = "webhook-signature" in h
    timestamp = h.get("webhook-timestamp" if standard else "x-timestamp", "")
    event_id = h.get("webhook-id" if standard else "x-event-id", "")
    if standard:
        signed = any(_standard_matches(k, event_id, timestamp, raw_body, h["webhook-signature"]) for k in keys)
    else:
        signed = any(_ours_matches(k, raw_body, h.get("x-signature", "")) for k in keys)
    if not signed:
        raise LeadIntakeError("invalid_signature", "The callback signature does not verify")
    now = time.time() if now_s is None else now_s
    if not timestamp.isdigit() or abs(now - int(timestamp)) > tolerance_s:
        raise LeadIntakeError("invalid_timestamp", "The callback timestamp is missing or outside the tolerance")
    payload = json.loads(raw_body)
    return VerifiedCallback(event_id, h.get("x-event", payload.get("event", "")), int(timestamp), payload)


def verify_postback(full_url: str, signature_header: Optional[str], secrets: Secrets) -> bool:
    """Verifies X-Postback-Signature: the HMAC of the full URL as it arrived (scheme, host, then the raw path
    and query, undecoded) with your postback token. Raises LeadIntakeError invalid_signature."""
    given = (signature_header or "").encode()
    keys = [secrets] if isinstance(secrets, str) else list(secrets)
    for k in keys:
        expected = ("sha256=" + hmac.new(k.encode(), full_url.encode(), hashlib.sha256).hexdigest()).encode()
        if hmac.compare_digest(given, expected):
            return True
    raise LeadIntakeError("invalid_signature", "The postback signature does not verify")


def _ours_matches(secret: str, body: bytes, header: str) -> bool:
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest().encode()
    # Constant time: never compare signatures with == (it leaks how many characters matched).
    return hmac.compare_digest(header.lower().removeprefix("sha256=").encode(), expected)


def _standard_matches(secret: str, event_id: str, timestamp: str, body: bytes, header: str) -> bool:
    # A whsec_ secret is base64 of the key; any other secret (a cs_ one kept on switching) is its UTF-8 bytes.
    key = base64.b64decode(secret[6:]) if secret.startswith("whsec_") else secret.encode()
    expected = hmac.new(key, b"%s.%s." % (event_id.encode(), timestamp.encode()) + body, hashlib.sha256).digest()
    for part in header.split(" "):
        if not part.startswith("v1,"):
            continue
        try:
            given = base64.b64decode(part[3:], validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(given, expected):
            return True
    return False

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Tuple, Union, cast

from .errors import LeadIntakeError
from .results import Accepted, DayReport, Duplicate, LeadPage, LeadStatus, PartnerLead, Refused, SendResult
from .retry import Answer, RetryPolicy, next_wait_s, retry_after_seconds

RetryHook = Callable[[Dict[str, Any]], None]
# A query value: None leaves the parameter out; a datetime is sent in ISO 8601.
QueryValue = Union[str, int, datetime.datetime, None]


class Client:
    """The partner API: ``base_url`` ends in /api. Every request is signed (HMAC-SHA256 of the exact bytes
    sent, with ``hmac_secret``) and retried only when that is safe, within ``policy.deadline_s``."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        hmac_secret: str,
        policy: RetryPolicy = RetryPolicy(),
        attempt_timeout_s: float = 10.0,
        on_retry: Optional[RetryHook] = None,
    ) -> None:
        self._base = base_url.rstrip("/")
        self._api_key = api_key
        self._secret = hmac_secret.encode()
        self._policy = policy
        self._attempt_timeout_s = attempt_timeout_s
        self._on_retry = on_retry

    def send_lead(self, lead: Mapping[str, Any], idempotency_key: Optional[str] = None) -> SendResult:
        """Sends one lead. The key (made here when not given) stays the same on every retry, so a retried
        request is answered once; the bytes signed are the bytes sent."""
        key = idempotency_key or str(uuid.uuid4())
        body = json.dumps(lead, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        headers = {"Content-Type": "application/json", "Idempotency-Key": key}
        status, answer, attempts = self._request("POST", "/v1/inbound/leads", body, headers)
        return _send_result(status, answer, key, attempts)

    def lead_status(self, external_id: str) -> LeadStatus:
        path = "/v1/inbound/leads/%s/status" % urllib.parse.quote(external_id, safe="")
        return cast(LeadStatus, self._get(path, {}))

    def list_leads(
        self,
        *,
        status: Optional[str] = None,
        country: Optional[str] = None,
        source: Optional[str] = None,
        sub_id: Optional[str] = None,
        click_id: Optional[str] = None,
        external_id: Optional[str] = None,
        from_: Optional[datetime.datetime] = None,
        to: Optional[datetime.datetime] = None,
        cursor: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> LeadPage:
        """One page of your own leads, newest first (``status`` is our code; created at or after ``from_``,
        before ``to``). A filter checked entry by entry may answer a short, even empty, page that
        is not the last: only ``next_cursor`` None ends the list."""
        query: Dict[str, QueryValue] = {
            "status": status,
            "country": country,
            "source": source,
            "sub_id": sub_id,
            "click_id": click_id,
            "external_id": external_id,
            "from": from_,
            "to": to,
            "cursor": cursor,
            "limit": limit,
        }
        answer = self._get("/v1/leads", query)
        return LeadPage(items=answer["items"], next_cursor=answer["next_cursor"])

    def iter_leads(self, **filters: Any) -> Iterator[PartnerLead]:
        """Every lead ``list_leads(**filters)`` matches, a page fetched when the one before is used up."""
        cursor: Optional[str] = None
        while True:
            page = self.list_leads(**dict(filters, cursor=cursor))
            yield from page.items
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def reports(self, from_: Union[str, datetime.date], to: Union[str, datetime.date]) -> DayReport:
        """Your traffic per reporting day (the partner's time_zone) from ``from_`` to ``to`` (both included): totals and a row a day."""
        return cast(DayReport, self._get("/v1/reports", {"from": str(from_), "to": str(to)}))

    def _get(self, path: str, query: Mapping[str, QueryValue]) -> Any:
        params = {k: v.isoformat() if isinstance(v, datetime.datetime) else str(v) for k, v in query.items() if v is not None}
        status, answer, _ = self._request("GET", path + ("?" + urllib.parse.urlencode(params) if params else ""), b"", {})
        if status != 200:
            raise _unexpected(status, answer)
        return answer

    def _request(self, method: str, path: str, body: bytes, headers: Dict[str, str]) -> Tuple[int, Any, int]:
        started = time.monotonic()
        signature = "sha256=" + hmac.new(self._secret, body, hashlib.sha256).hexdigest()
        attempt = 0
        while True:
            attempt += 1
            answer, reply, failure = self._attempt(method, path, body, dict(headers, **{"X-Signature": signature}), started)
            remaining = self._policy.deadline_s - (time.monotonic() - started)
            wait = next_wait_s(answer, attempt, remaining, self._policy, random.random(), time.time())
            if wait is None:
                if reply is not None and answer.error is None:
                    return reply[0], reply[1], attempt
                raise _error_of(answer, reply, failure)
            if self._on_retry:
                self._on_retry(
                    {
                        "attempt": attempt,
                        "status": answer.status,
                        "error": answer.error,
                        "retry_after_s": retry_after_seconds(answer.retry_after, time.time()),
                        "wait_s": wait,
                    }
                )
            time.sleep(wait)

    def _attempt(
        self, method: str, path: str, body: bytes, headers: Dict[str, str], started: float
    ) -> Tuple[Answer, Optional[Tuple[int, Any]], Optional[str]]:
        """One try: its answer (status, error code, Retry-After), the reply (status, parsed body) or why none came."""
        remaining = max(0.001, self._policy.deadline_s - (time.monotonic() - started))
        headers = dict(headers, Authorization="Bearer " + self._api_key)
        headers["X-Timestamp"] = str(int(time.time()))
        request = urllib.request.Request(self._base + path, data=body if method == "POST" else None, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=min(self._attempt_timeout_s, remaining)) as res:
                status, raw, retry_after = res.status, res.read(), res.headers.get("Retry-After")
        except urllib.error.HTTPError as e:
            status, raw, retry_after = e.code, e.read(), e.headers.get("Retry-After")
        except (urllib.error.URLError, OSError) as e:
            return Answer(None), None, str(e)
        parsed = _json(raw)
        error = parsed.get("error") if isinstance(parsed, dict) and isinstance(parsed.get("error"), str) else None
        return Answer(status, error, retry_after), (status, parsed if parsed is not None else raw), None


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _error_of(answer: Answer, reply: Optional[Tuple[int, Any]], failure: Optional[str]) -> LeadIntakeError:
    if reply is None:
        return LeadIntakeError("network_error", "No answer: %s" % failure)
    status, body = reply
    if answer.error is None:
        return _unexpected(status, body)
    retry_after = retry_after_seconds(answer.retry_after, time.time())
    return LeadIntakeError(answer.error, str(body.get("message", "")), status, retry_after)


def _unexpected(status: int, body: Any) -> LeadIntakeError:
    return LeadIntakeError("unexpected_answer", "HTTP %d: %r" % (status, body), status)


def _send_result(status: int, r: Any, key: str, attempts: int) -> SendResult:
    replay = isinstance(r, dict) and r.get("replay") is True
    kind = r.get("status") if isinstance(r, dict) else None
    if kind == "accepted" and r.get("id"):
        return Accepted(replay, key, attempts, lead_id=r["id"])
    if kind == "duplicate" and r.get("id"):
        return Duplicate(replay, key, attempts, matched_lead_id=r["id"], reason=r.get("reason") or "")
    if kind in ("validation_error", "rejected") and r.get("reason"):
        return Refused(replay, key, attempts, status=kind, reason=r["reason"])
    raise _unexpected(status, r)

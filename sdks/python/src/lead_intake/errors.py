from __future__ import annotations

from typing import Optional


class LeadIntakeError(Exception):
    """The one error the SDK raises. ``code`` is the service's error code (docs/errors.md), or one of the
    SDK's own: ``network_error`` (no answer), ``invalid_signature`` / ``invalid_timestamp`` (a callback or
    postback that does not verify) and ``unexpected_answer`` (an answer the partner API never gives)."""

    def __init__(self, code: str, message: str, status: Optional[int] = None, retry_after_s: Optional[int] = None):
        super().__init__(message)
        self.code = code
        self.status = status
        self.retry_after_s = retry_after_s

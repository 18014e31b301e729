"""Schemathesis hooks: sign every request to the partner API the way a partner's client would.

Loaded through SCHEMATHESIS_HOOKS by test/api/api-contract-partner.test.ts. The signature is the
HMAC-SHA256 of the exact body bytes sent (empty for a GET) with the partner's hmac_secret, so it is
computed on the prepared request, after Schemathesis has serialised the body. The test passes
Authorization with -H and X-Signature / X-Timestamp as the placeholder PLACEHOLDER, so Schemathesis
treats all three as explicit credentials; only placeholders are replaced: a header Schemathesis
removed or generated on purpose (missing or invalid credentials) reaches the server as it is.
"""

import hashlib
import hmac
import os
import re
import time
import uuid

import requests
import schemathesis
from schemathesis.transport.prepare import get_exclude_headers

PARTNER_PREFIX = "/api/v1/inbound/"
PLACEHOLDER = "sign-me"
# The document's Idempotency-Key pattern: a key it allows is replaced by a fresh one, as a partner's
# client uses one key per lead; keys generated to break the pattern are sent as they are.
VALID_KEY = re.compile(r"^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$")


class PartnerSignature(requests.auth.AuthBase):
    def __init__(self, secret: str, removed: list[str]) -> None:
        self.secret = secret.encode()
        self.removed = removed

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        # A header the case leaves out on purpose (a missing-header test) must not come back from -H.
        for name in self.removed:
            request.headers.pop(name, None)
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode()
        if request.headers.get("X-Signature") == PLACEHOLDER:
            request.headers["X-Signature"] = "sha256=" + hmac.new(self.secret, body, hashlib.sha256).hexdigest()
        if request.headers.get("X-Timestamp") == PLACEHOLDER:
            request.headers["X-Timestamp"] = str(int(time.time()))
        return request


@schemathesis.hook
def before_call(context, case, kwargs):
    if not case.path.startswith(PARTNER_PREFIX):
        return
    kwargs["auth"] = PartnerSignature(os.environ["PARTNER_HMAC_SECRET"], get_exclude_headers(case))
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if isinstance(key, str) and len(key) <= 255 and VALID_KEY.match(key):
        headers["Idempotency-Key"] = f"contract-{uuid.uuid4().hex}"


# What JSON Schema cannot say about a lead, and the document's 422 answer names: a phone number that
# is possible for its country, a country named in English or by an assigned ISO code, and the
# business rules (rejected). A schema-valid lead refused for one of these is the documented answer,
# not a mismatch; any other 422 to a schema-valid lead still fails the run.
BEYOND_SCHEMA = re.compile(r"^(invalid_format:phone|invalid_value:country|invalid_value:country_code)$")


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if type(failure).__name__ != "RejectedPositiveData" or case.path != "/api/v1/inbound/leads" or response.status_code != 422:
        return True
    try:
        body = response.json()
    except ValueError:
        return True
    documented = body.get("status") == "rejected" or (
        body.get("status") == "validation_error" and BEYOND_SCHEMA.match(str(body.get("reason")))
    )
    return not documented

"""Schemathesis hooks for the partner portal's document: what JSON Schema cannot say about a request.

Loaded through SCHEMATHESIS_HOOKS by test/integration/api-contract.test.ts. A schema-valid request
refused with 422 for exactly one of these reasons is the documented answer, not a mismatch; any
other 422 to a schema-valid request still fails the run:
- a replay's range must run forwards and span at most REPLAY_MAX_RANGE_S (POST /portal/api/replays);
- a callback URL must parse as a URL and reach a public address (PATCH /portal/api/integration: the
  schema gives its shape, https and no credentials; the address guard refuses a private or loopback
  IP, or localhost, when it is saved).
A 503 command_pending to a command the dispatcher must confirm (a replay, a retry, a resume) and a
410 link_invalid to a one-time link never made are documented too (refusals.py).
"""

import re

import schemathesis
from refusals import RANGE_RULE, body_of, documented_refusal

REPLAY_PATH = "/portal/api/replays"
INTEGRATION_PATH = "/portal/api/integration"
CALLBACK_RULE = re.compile(r"/callback_url (is not a URL|must reach a public address)")
LINK_PATH = re.compile(r"^/portal/api/auth/links/[^/]+$")


def portal_rule(path, message):
    if path == REPLAY_PATH:
        return RANGE_RULE.search(message) is not None
    return path == INTEGRATION_PATH and CALLBACK_RULE.search(message) is not None


@schemathesis.hook
def filter_failure(context, failure, case, response):
    body = body_of(response)
    return body is None or not documented_refusal(failure, case, response, body, LINK_PATH, portal_rule)

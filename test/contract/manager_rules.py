"""Schemathesis hooks for the manager document: what JSON Schema cannot say about a request.

Loaded through SCHEMATHESIS_HOOKS by test/api/api-contract-manager.test.ts. Rules a schema
cannot state, each described by its operation, so a schema-valid request refused with 422 for
exactly that reason is the documented answer, not a mismatch; any other 422 to a schema-valid
request still fails the run:
- a replay's range must run forwards and span at most REPLAY_MAX_RANGE_S (a relation between two
  fields; the operation's 422 gives an example of each);
- a postback template in a partner's settings must name only known macros, never money or
  personal data, none in the host, no stray brace, an https URL without credentials, and {token}
  or sign only with a token set: any other is answered 422 invalid_request naming /postbacks/...;
  the preview's template has that shape in the document, and {token} needs the partner's token
  (its 422's example);
- a report's days must run forwards (from not after to) and span at most 366 days, and a date the
  default (today, or 6 days before to) supplies counts (GET /api/reports and /api/reports.csv; the
  422's examples).
- an account's or a service account's partner_ids must name existing partners (their shape, the
  schema's pattern), and an account's agent_id an existing agent;
- a one-time link must be one that was made, unused and under 24 hours old: any other answers 410
  link_invalid;
- a new password (a link's use, one's own change) must not be among the most common ones (refusals.py).
A 503 command_pending to a command the dispatcher must confirm (a replay, a retry) is documented
too: the run has no dispatcher, so no command is confirmed (its own test runs one).
"""

import re

import schemathesis
from refusals import RANGE_RULE, body_of, common_password, documented_refusal
import time_zone_sample  # noqa: F401  (registers its hook)

SETTINGS_PATH = "/api/affiliates"
REPLAY_PATH = re.compile(r"^/api/affiliates/[^/]+/replay$")
REPORT_PATHS = ("/api/reports", "/api/reports.csv")
REPORT_RULE = re.compile(r"(from is after to|a report spans at most \d+ days)")
PREVIEW_PATH = re.compile(r"^/api/affiliates/[^/]+/postback-preview$")
PARTNER_LISTS = ("/api/accounts", "/api/service-accounts")
LINK_PATH = re.compile(r"^/api/auth/links/[^/]+$")


def manager_rule(path, message):
    if common_password(path, message):
        return True
    if REPLAY_PATH.match(path):
        return RANGE_RULE.search(message) is not None
    if path in REPORT_PATHS:
        return REPORT_RULE.search(message) is not None
    if PREVIEW_PATH.match(path):
        return "/template names {token}, but no postback token is set" in message
    if path.startswith(PARTNER_LISTS) and ("/partner_ids: no partner " in message or "/agent_id: no agent " in message):
        return True
    return path.startswith(SETTINGS_PATH) and "/postbacks/" in message


@schemathesis.hook
def filter_failure(context, failure, case, response):
    body = body_of(response)
    return body is None or not documented_refusal(failure, case, response, body, LINK_PATH, manager_rule)

"""Schemathesis hooks for the partner portal's document: what JSON Schema cannot say about a request.

Loaded through SCHEMATHESIS_HOOKS by test/api/api-contract-portal.test.ts. A schema-valid request
refused with 422 for this reason is the documented answer (with an example of each), not a
mismatch; any other 422 to a schema-valid request still fails the run: a replay's range must run
forwards and span at most REPLAY_MAX_RANGE_S (POST /portal/api/replays); the overview's days must run
forwards and span at most 366 days (GET /portal/api/overview and overview.csv with from or to); a lead
export's range must run forwards and span at most 31 days (GET /portal/api/leads.csv); and a new password
must not be among the most common ones (refusals.py). A callback URL's shape is
the document's (a public host name), so its refusals are not excused here.
A 503 command_pending to a command the dispatcher must confirm (a replay, a retry, a resume) and a
410 link_invalid to a one-time link never made are documented too (refusals.py).
"""

import re

import schemathesis
from refusals import RANGE_RULE, body_of, common_password, documented_refusal
import time_zone_sample  # noqa: F401  (registers its hook)

REPLAY_PATH = "/portal/api/replays"
OVERVIEW_PATHS = ("/portal/api/overview", "/portal/api/overview.csv")
OVERVIEW_RULE = re.compile(r"(from is after to|a report spans at most \d+ days)")
EXPORT_PATH = "/portal/api/leads.csv"
EXPORT_RULE = re.compile(r"(from must be before to|an export covers at most \d+ days)")
LINK_PATH = re.compile(r"^/portal/api/auth/links/[^/]+$")


def portal_rule(path, message):
    if common_password(path, message):
        return True
    if path in OVERVIEW_PATHS:
        return OVERVIEW_RULE.search(message) is not None
    if path == EXPORT_PATH:
        return EXPORT_RULE.search(message) is not None
    return path == REPLAY_PATH and RANGE_RULE.search(message) is not None


@schemathesis.hook
def filter_failure(context, failure, case, response):
    body = body_of(response)
    return body is None or not documented_refusal(failure, case, response, body, LINK_PATH, portal_rule)

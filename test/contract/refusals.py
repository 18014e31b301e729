"""What the manager's and the portal's Schemathesis hooks share (no hooks here: a module with hooks
registers them when imported).

A documented refusal is not a mismatch: a 503 command_pending to a command the dispatcher must
confirm (the contract run has no dispatcher), a 410 link_invalid to a one-time link that was never
made, a replay range that runs backwards or is longer than REPLAY_MAX_RANGE_S (a relation between
two fields JSON Schema cannot state), a new password among the most common ones (a list of ten
thousand, with case and trailing digits ignored, is no JSON Schema; each such 422 has its example).
"""

import re

RANGE_RULE = re.compile(r"(/from must be before /to|the range is longer than REPLAY_MAX_RANGE_S)")
# The routes that set a password (a one-time link's use, one's own change), manager or portal.
NEW_PASSWORD_PATH = re.compile(r"^(/portal)?/api/(auth/links/use|me/password)$")
COMMON_PASSWORD = re.compile(r"/(password|new_password): the password is among the most common ones")


def common_password(path, message):
    return NEW_PASSWORD_PATH.match(path) is not None and COMMON_PASSWORD.search(message) is not None


def body_of(response):
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def documented_refusal(failure, case, response, body, link_path, rule_for):
    """True when the failure is a documented answer: command_pending, link_invalid on `link_path`,
    or a 422 invalid_request whose message `rule_for(path, message)` accepts."""
    kind = type(failure).__name__
    if kind == "ServerError" and response.status_code == 503:
        return body.get("error") == "command_pending"
    if kind == "RejectedPositiveData" and response.status_code == 410 and link_path.match(case.path):
        return body.get("error") == "link_invalid"
    if kind != "RejectedPositiveData" or response.status_code != 422:
        return False
    return body.get("error") == "invalid_request" and rule_for(case.path, str(body.get("message")))

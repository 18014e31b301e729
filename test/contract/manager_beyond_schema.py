"""Schemathesis hooks for the manager document: what JSON Schema cannot say about a setting.

Loaded through SCHEMATHESIS_HOOKS by test/integration/api-contract.test.ts. A time_zone must be an
IANA zone the server can compute in; the schema gives its shape (a pattern) and the document says
that any other zone is answered 422 invalid_request naming /time_zone. Such an answer to a
schema-valid body is the documented one, not a mismatch; any other 422 still fails the run.
"""

import schemathesis

SETTINGS_PATHS = ("/api/affiliates", "/api/agents")


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if type(failure).__name__ != "RejectedPositiveData" or not case.path.startswith(SETTINGS_PATHS) or response.status_code != 422:
        return True
    try:
        body = response.json()
    except ValueError:
        return True
    return not (body.get("error") == "invalid_request" and "/time_zone " in str(body.get("message")))

"""A hook both the manager's and the portal's runs load: a time_zone setting's enum (this runtime's
400-odd IANA zones and UTC) is narrowed to a sample before the run.

The coverage phase sends every value of an enum to every operation that has it: the zones alone were
about half of the manager's run. The sample keeps the zones whose offsets are unusual (half and
quarter hours, +14, -11, a half-hour daylight saving shift) and a few common ones; that the server
computes in every documented zone is a unit test (test/unit/manager-documented-schemas.test.ts).
"""

import schemathesis

SAMPLE = (
    "UTC",
    "Europe/London",
    "America/New_York",
    "America/St_Johns",
    "Asia/Kolkata",  # ICU lists some zones by their older names: whichever this runtime lists stays
    "Asia/Calcutta",
    "Asia/Kathmandu",
    "Asia/Katmandu",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago",
)


def is_zone_list(values):
    return isinstance(values, list) and len(values) > 100 and "UTC" in values and "Europe/London" in values


def narrowed(node):
    if isinstance(node, dict):
        if is_zone_list(node.get("enum")):
            node["enum"] = [v for v in node["enum"] if v in SAMPLE or v is None]
        for value in node.values():
            narrowed(value)
    elif isinstance(node, list):
        for value in node:
            narrowed(value)


@schemathesis.hook
def before_load_schema(context, raw_schema):
    narrowed(raw_schema)

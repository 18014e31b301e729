# Runs docs/crm/snippets/read_assignments.py against a real topic: argv bootstrap, registry URL, topic,
# group, how many distinct changes to wait for, and seconds at most; prints each handled change as a JSON line.
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "crm", "snippets"))
from read_assignments import read_assignments  # noqa: E402

bootstrap, registry, topic, group, want, seconds = sys.argv[1:7]
deadline = time.time() + float(seconds)
seen = set()


def handle(assignment):
    print(json.dumps(assignment, sort_keys=True), flush=True)


read_assignments(bootstrap, registry, topic, group, handle, seen, lambda: len(seen) < int(want) and time.time() < deadline)

# Runs the Python snippet of docs/partners: one JSON case a line on stdin ({secret, headers,
# body_base64, now}), one verdict a line on stdout; repeats are remembered across lines.
import base64
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "partners", "snippets"))
from verify_callback import verify_callback  # noqa: E402

seen = set()
for line in sys.stdin:
    c = json.loads(line)
    print(verify_callback(c["secret"], c["headers"], base64.b64decode(c["body_base64"]), seen, c["now"]), flush=True)

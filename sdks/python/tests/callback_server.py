"""A partner's callback endpoint: verifies each callback with the secrets of its path before anything
else, answers 204 or 401, and keeps what came for the tests to look at."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from lead_intake import LeadIntakeError, verify_callback


class CallbackServer:
    def __init__(self, port, secrets):
        self.received = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k.lower(): v for k, v in self.headers.items()}
                verdict = "ok"
                try:
                    verify_callback(headers, raw, secrets.get(self.path, []))
                except LeadIntakeError as e:
                    verdict = e.code
                server.received.append({"path": self.path, "headers": headers, "raw": raw, "verdict": verdict})
                self.send_response(204 if verdict == "ok" else 401)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def wait_for(self, path, match, timeout_s=30):
        until = time.time() + timeout_s
        while time.time() < until:
            for r in list(self.received):
                if r["path"] == path and match(json.loads(r["raw"])):
                    return r
            time.sleep(0.1)
        raise AssertionError("no callback at %s within %s s" % (path, timeout_s))

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

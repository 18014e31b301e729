"""The parts that need no service: when to retry, and verifying signatures made here."""
import base64
import hashlib
import hmac
import threading
import time
import unittest
import urllib.parse
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from lead_intake import Accepted, Client, LeadIntakeError, RetryPolicy, verify_callback, verify_postback
from lead_intake.retry import Answer, RetryPolicy, next_wait_s, retry_after_seconds

POLICY = RetryPolicy()


class RetryTest(unittest.TestCase):
    def test_retries_only_what_is_safe_never_before_retry_after(self):
        for a in [Answer(None), Answer(503), Answer(409, "idempotency_key_in_use", "1")]:
            self.assertIsNotNone(next_wait_s(a, 1, 30, POLICY, 0.5, 0))
        for a in [Answer(400, "malformed_json"), Answer(403, "invalid_signature"), Answer(500, "internal_error")]:
            self.assertIsNone(next_wait_s(a, 1, 30, POLICY, 0.5, 0))
        self.assertEqual(next_wait_s(Answer(429, "rate_limit_exceeded", "7"), 1, 30, POLICY, 0, 0), 7)
        self.assertEqual(next_wait_s(Answer(429, "rate_limit_exceeded", "7"), 1, 30, POLICY, 1, 0), 7.5)
        self.assertIsNone(next_wait_s(Answer(429, "rate_limit_exceeded", "40"), 1, 30, POLICY, 0, 0))
        self.assertEqual(retry_after_seconds(formatdate(12, usegmt=True), 1), 11)

    def test_backs_off_exponentially_with_jitter_up_to_the_cap(self):
        self.assertEqual(next_wait_s(Answer(None), 1, 30, POLICY, 0, 0), 0.25)
        self.assertEqual(next_wait_s(Answer(None), 3, 30, POLICY, 1, 0), 2)
        self.assertEqual(next_wait_s(Answer(None), 10, 30, POLICY, 1, 0), 8)


class RetriedSendTest(unittest.TestCase):
    """Against a stand-in that answers 503 twice: every retry carries the same Idempotency-Key, the same bytes
    and their signature, and the answer after the retries is the one returned."""

    def test_keeps_one_key_and_signs_the_same_bytes_on_every_retry(self):
        seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                seen.append((self.headers["Idempotency-Key"], self.headers["X-Signature"], body))
                pending = len(seen) < 3
                self.send_response(503 if pending else 200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(
                    b'{"error":"decision_pending","message":"Not decided in time"}'
                    if pending
                    else b'{"id":"le-7","status":"accepted","reason":null}'
                )

            def log_message(self, *args):
                pass

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        try:
            url = "http://127.0.0.1:%d/api" % httpd.server_address[1]
            client = Client(url, "lk_test", "hs_test", policy=RetryPolicy(base_delay_s=0.01))
            result = client.send_lead({"phone": "+447911123456", "first_name": "Zoë"})
        finally:
            httpd.shutdown()
            httpd.server_close()
        self.assertIsInstance(result, Accepted)
        self.assertEqual((result.lead_id, result.attempts, result.replay), ("le-7", 3, False))
        self.assertEqual({key for key, _, _ in seen}, {result.idempotency_key})
        self.assertEqual(len({body for _, _, body in seen}), 1)
        for _, signature, body in seen:
            self.assertEqual(signature, "sha256=" + hmac.new(b"hs_test", body, hashlib.sha256).hexdigest())


    def test_retries_a_request_without_answer_until_the_deadline_then_raises_network_error(self):
        retried = []
        closed = Client("http://127.0.0.1:9/api", "lk_test", "hs_test", RetryPolicy(deadline_s=1.5, base_delay_s=0.1), on_retry=retried.append)
        started = time.monotonic()
        with self.assertRaises(LeadIntakeError) as caught:
            closed.send_lead({"phone": "+447911123456"})
        self.assertEqual(caught.exception.code, "network_error")
        self.assertGreaterEqual(len(retried), 2)
        self.assertTrue(all(r["status"] is None for r in retried))
        # At the deadline, not retrying past it: a loaded machine's timers may fire a little late.
        self.assertLess(time.monotonic() - started, 1.5 + 0.5)



class RetriedReportingTest(unittest.TestCase):
    """Against a stand-in that answers each reporting request 429 (Retry-After: 1) once, then a page: the call
    waits as asked, signs the empty body, sends its filters and cursor, and the iterator follows next_cursor."""

    def test_iterates_pages_each_after_waiting_out_its_429(self):
        seen = []
        pages = {
            None: b'{"items":[{"external_id":"a-2"}],"next_cursor":"2026-11-22T10:00:00.000Z|le-2"}',
            "2026-11-22T10:00:00.000Z|le-2": b'{"items":[{"external_id":"a-1"}],"next_cursor":null}',
        }

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                first = self.path not in [path for path, _ in seen]
                seen.append((self.path, self.headers["X-Signature"]))
                cursor = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("cursor", [None])[0]
                self.send_response(429 if first else 200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Retry-After", "1")
                self.end_headers()
                self.wfile.write(b'{"error":"rate_limit_exceeded","message":"Try again"}' if first else pages[cursor])

            def log_message(self, *args):
                pass

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        retried = []
        started = time.monotonic()
        try:
            client = Client("http://127.0.0.1:%d/api" % httpd.server_address[1], "lk_test", "hs_test", on_retry=retried.append)
            ids = [lead["external_id"] for lead in client.iter_leads(sub_id="sub 1", limit=1)]
        finally:
            httpd.shutdown()
            httpd.server_close()
        self.assertEqual(ids, ["a-2", "a-1"])
        self.assertEqual([(r["status"], r["retry_after_s"]) for r in retried], [(429, 1), (429, 1)])
        self.assertGreaterEqual(time.monotonic() - started, 2)
        empty = "sha256=" + hmac.new(b"hs_test", b"", hashlib.sha256).hexdigest()
        self.assertEqual({signature for _, signature in seen}, {empty})
        self.assertEqual(seen[0][0], "/api/v1/leads?sub_id=sub+1&limit=1")
        self.assertEqual(seen[2][0], "/api/v1/leads?sub_id=sub+1&cursor=2026-11-22T10%3A00%3A00.000Z%7Cle-2&limit=1")

class VerifyTest(unittest.TestCase):
    def test_both_callback_schemes_and_a_postback(self):
        body = b'{"event":"lead.accepted","external_lead_id":"x","internal_id":"le-1"}'
        ours = {"X-Signature": "sha256=" + hmac.new(b"cs_a", body, hashlib.sha256).hexdigest(), "X-Timestamp": "1700000000"}
        self.assertEqual(verify_callback(ours, body, ["cs_b", "cs_a"], now_s=1700000100).payload["internal_id"], "le-1")
        self.assertRaises(LeadIntakeError, verify_callback, ours, body, "cs_b", now_s=1700000100)
        key = b"k" * 24
        sig = base64.b64encode(hmac.new(key, b"le-1:1.1700000000." + body, hashlib.sha256).digest()).decode()
        swh = {"webhook-id": "le-1:1", "webhook-timestamp": "1700000000", "webhook-signature": "v1,AAAA v1," + sig}
        secret = "whsec_" + base64.b64encode(key).decode()
        self.assertEqual(verify_callback(swh, body, secret, now_s=1700000000).event_id, "le-1:1")
        with self.assertRaises(LeadIntakeError) as caught:
            verify_callback(swh, body, secret, now_s=1700000400)
        self.assertEqual(caught.exception.code, "invalid_timestamp")
        url = "https://t.example/pb?e=lead.ftd"
        signature = "sha256=" + hmac.new(b"tok", url.encode(), hashlib.sha256).hexdigest()
        self.assertTrue(verify_postback(url, signature, "tok"))
        with self.assertRaises(LeadIntakeError) as caught:
            verify_postback(url + "x", signature, "tok")
        self.assertEqual(caught.exception.code, "invalid_signature")


if __name__ == "__main__":
    unittest.main()

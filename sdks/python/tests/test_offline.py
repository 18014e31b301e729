"""The parts that need no service: when to retry, and verifying signatures made here."""
import base64
import hashlib
import hmac
import unittest
from email.utils import formatdate

from lead_intake import LeadIntakeError, verify_callback, verify_postback
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

"""Against a running service: the partners named by the LEAD_INTAKE_* variables (sdks/README.md)."""
import datetime
import os
import random
import time
import unittest
import uuid

from lead_intake import Accepted, Client, LeadIntakeError, RetryPolicy, verify_callback

from .callback_server import CallbackServer


def env(name):
    value = os.environ.get(name)
    if not value:
        raise RuntimeError("%s is not set (see sdks/README.md)" % name)
    return value


def phone():
    return "+44791%07d" % random.randrange(10**7)


class LiveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base_url = env("LEAD_INTAKE_URL")
        cls.client = Client(cls.base_url, env("LEAD_INTAKE_API_KEY"), env("LEAD_INTAKE_HMAC_SECRET"))
        cls.rotated = [env("LEAD_INTAKE_ROTATED_CALLBACK_SECRET_OLD"), env("LEAD_INTAKE_ROTATED_CALLBACK_SECRET")]
        secrets = {"/spec": [env("LEAD_INTAKE_CALLBACK_SECRET")], "/rotated": cls.rotated}
        cls.server = CallbackServer(int(env("LEAD_INTAKE_CALLBACK_PORT")), secrets)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    # First (tests run in name order): the tight partner's window frees a few seconds after the start.
    def test_1_waits_out_a_429_as_long_as_retry_after_asks(self):
        retries = []
        creds = (env("LEAD_INTAKE_TIGHT_API_KEY"), env("LEAD_INTAKE_TIGHT_HMAC_SECRET"))
        tight = Client(self.base_url, *creds, on_retry=retries.append)
        started = time.monotonic()
        result = tight.send_lead({"phone": phone()})
        self.assertIsInstance(result, Accepted)
        self.assertEqual(result.attempts, 2)
        self.assertEqual((retries[0]["status"], retries[0]["error"]), (429, "rate_limit_exceeded"))
        self.assertGreaterEqual(retries[0]["wait_s"], retries[0]["retry_after_s"])
        self.assertGreaterEqual(time.monotonic() - started, retries[0]["wait_s"])

        # Now the window holds that lead for a minute: a deadline shorter than the wait gives up at once.
        hurried = Client(self.base_url, *creds, policy=RetryPolicy(deadline_s=2))
        at = time.monotonic()
        with self.assertRaises(LeadIntakeError) as caught:
            hurried.send_lead({"phone": phone()})
        self.assertEqual((caught.exception.code, caught.exception.status), ("rate_limit_exceeded", 429))
        self.assertGreater(caught.exception.retry_after_s, 2)
        self.assertLess(time.monotonic() - at, 2)

    def test_2_sends_replays_and_finds_the_status_and_its_verified_callback(self):
        external_id = "py-%s" % uuid.uuid4()
        lead = {"phone": phone(), "external_id": external_id, "country": "GB"}
        first = self.client.send_lead(lead)
        self.assertIsInstance(first, Accepted)
        self.assertEqual((first.replay, first.attempts), (False, 1))
        again = self.client.send_lead(lead, idempotency_key=first.idempotency_key)
        self.assertEqual((again.outcome, again.lead_id, again.replay), ("accepted", first.lead_id, True))
        status = self.client.lead_status(external_id)
        self.assertEqual((status["id"], status["our_status"], status["is_depositor"]), (first.lead_id, "new", False))

        secret = env("LEAD_INTAKE_CALLBACK_SECRET")
        callback = self.server.wait_for("/spec", lambda b: b["external_lead_id"] == external_id)
        self.assertEqual(callback["verdict"], "ok")
        tampered = callback["raw"].replace(b'"new"', b'"ftd"')
        for args, code in [
            ((tampered, secret), "invalid_signature"),
            ((callback["raw"], "cs_not_the_secret"), "invalid_signature"),
        ]:
            with self.assertRaises(LeadIntakeError) as caught:
                verify_callback(callback["headers"], *args)
            self.assertEqual(caught.exception.code, code)
        with self.assertRaises(LeadIntakeError) as caught:
            verify_callback(callback["headers"], callback["raw"], secret, now_s=int(callback["headers"]["x-timestamp"]) + 301)
        self.assertEqual(caught.exception.code, "invalid_timestamp")

    def test_3_tells_a_duplicate_by_the_lead_it_matched(self):
        p = phone()
        first = self.client.send_lead({"phone": p})
        dup = self.client.send_lead({"phone": p})
        self.assertEqual((dup.outcome, dup.matched_lead_id, dup.replay), ("duplicate", first.lead_id, False))
        self.assertRegex(dup.reason, r"^matched_lead:\d+$")

    def test_4_refuses_with_the_reason(self):
        for lead, status, reason in [
            ({"phone": "not a phone"}, "validation_error", "invalid_format:phone"),
            ({"phone": phone(), "country": "RU"}, "rejected", "country_blocked:RU"),
            ({"phone": phone(), "source": "blocked-src"}, "rejected", "source_blocked"),
        ]:
            result = self.client.send_lead(lead)
            self.assertEqual((result.outcome, result.status, result.reason), ("refused", status, reason))

    def test_5_raises_lead_intake_error_with_the_code_without_retrying(self):
        with self.assertRaises(LeadIntakeError) as caught:
            self.client.lead_status("no-such-lead")
        self.assertEqual((caught.exception.code, caught.exception.status), ("not_found", 404))
        forged = Client(self.base_url, env("LEAD_INTAKE_API_KEY"), "hs_wrong")
        with self.assertRaises(LeadIntakeError) as caught:
            forged.send_lead({"phone": phone()})
        self.assertEqual((caught.exception.code, caught.exception.status), ("invalid_signature", 403))

    def test_6_during_a_rotation_the_old_key_sends_and_either_secret_verifies(self):
        old = Client(self.base_url, env("LEAD_INTAKE_ROTATED_API_KEY_OLD"), env("LEAD_INTAKE_ROTATED_HMAC_SECRET_OLD"))
        external_id = "py-rot-%s" % uuid.uuid4()
        self.assertIsInstance(old.send_lead({"phone": phone(), "external_id": external_id}), Accepted)
        callback = self.server.wait_for("/rotated", lambda b: b["external_lead_id"] == external_id)
        self.assertEqual(callback["verdict"], "ok")
        self.assertEqual(len(callback["headers"]["webhook-signature"].split(" ")), 2)
        for secret in self.rotated:
            verified = verify_callback(callback["headers"], callback["raw"], secret)
            self.assertEqual(verified.event_id, callback["headers"]["webhook-id"])
        tampered = callback["raw"].replace(external_id.encode(), b"someone-else")
        for body, secrets in [(tampered, self.rotated), (callback["raw"], "whsec_bm90IHRoZSBzZWNyZXQ=")]:
            with self.assertRaises(LeadIntakeError) as caught:
                verify_callback(callback["headers"], body, secrets)
            self.assertEqual(caught.exception.code, "invalid_signature")


    def test_7_lists_own_leads_by_a_filter_a_page_at_a_time_and_reads_todays_report(self):
        today = datetime.datetime.now(datetime.timezone.utc).date()
        sub_id = "py-sub-%s" % uuid.uuid4()
        ours = []
        for _ in range(3):
            external_id = "py-rep-%s" % uuid.uuid4()
            lead = {"phone": phone(), "external_id": external_id, "sub_id": sub_id, "country": "GB"}
            self.assertIsInstance(self.client.send_lead(lead), Accepted)
            ours.append(external_id)
        # Another partner's lead with the same sub_id is never the first partner's to see.
        other = Client(self.base_url, env("LEAD_INTAKE_ROTATED_API_KEY_OLD"), env("LEAD_INTAKE_ROTATED_HMAC_SECRET_OLD"))
        theirs = "py-other-%s" % uuid.uuid4()
        self.assertIsInstance(other.send_lead({"phone": phone(), "external_id": theirs, "sub_id": sub_id}), Accepted)

        page = self.client.list_leads(sub_id=sub_id, country="GB")
        self.assertEqual(sorted(lead["external_id"] for lead in page.items), sorted(ours))
        self.assertIsNone(page.next_cursor)
        for lead in page.items:
            self.assertRegex(lead["phone"], r"^\+44 \d{2}\*\* \*\*\*\d{3}$")

        first = self.client.list_leads(sub_id=sub_id, limit=2)
        self.assertEqual(len(first.items), 2)
        self.assertIsNotNone(first.next_cursor)
        second = self.client.list_leads(sub_id=sub_id, limit=2, cursor=first.next_cursor)
        self.assertEqual(sorted(lead["external_id"] for lead in first.items + second.items), sorted(ours))

        every = [lead["external_id"] for lead in self.client.iter_leads(sub_id=sub_id, limit=1)]
        self.assertEqual(sorted(every), sorted(ours))
        self.assertNotIn(theirs, every)
        self.assertEqual([lead["external_id"] for lead in other.list_leads(sub_id=sub_id).items], [theirs])

        # The report's figures are counted from the pipeline's events: wait until today's row has our leads.
        deadline = time.monotonic() + 30
        while True:
            report = self.client.reports(today, today)
            row = next((d for d in report["by_day"] if d["day"] == str(today)), None)
            if (row is not None and row["accepted"] >= len(ours)) or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        self.assertEqual((report["from"], report["to"]), (str(today), str(today)))
        self.assertGreaterEqual(report["totals"]["accepted"], len(ours))
        with self.assertRaises(LeadIntakeError) as caught:
            self.client.reports(today, "not-a-day")
        self.assertEqual((caught.exception.code, caught.exception.status), ("invalid_request", 422))


if __name__ == "__main__":
    unittest.main()

<?php

declare(strict_types=1);

use LeadIntake\LeadIntakeError;
use LeadIntake\RetryPolicy;
use LeadIntake\Webhooks;
use PHPUnit\Framework\TestCase;

// The parts that need no service: when to retry, and verifying signatures made here.
final class OfflineTest extends TestCase
{
    public function testRetriesOnlyWhatIsSafeNeverBeforeRetryAfter(): void
    {
        $p = new RetryPolicy();
        foreach ([[null, null, null], [503, null, null], [409, 'idempotency_key_in_use', '1']] as [$s, $e, $r]) {
            $this->assertNotNull($p->nextWaitS($s, $e, $r, 1, 30, 0.5, 0));
        }
        foreach ([[400, 'malformed_json'], [403, 'invalid_signature'], [500, 'internal_error']] as [$s, $e]) {
            $this->assertNull($p->nextWaitS($s, $e, null, 1, 30, 0.5, 0));
        }
        $this->assertSame(7.0, $p->nextWaitS(429, 'rate_limit_exceeded', '7', 1, 30, 0, 0));
        $this->assertSame(7.5, $p->nextWaitS(429, 'rate_limit_exceeded', '7', 1, 30, 1, 0));
        $this->assertNull($p->nextWaitS(429, 'rate_limit_exceeded', '40', 1, 30, 0, 0));
        $this->assertSame(11, RetryPolicy::retryAfterSeconds(gmdate('D, d M Y H:i:s \G\M\T', 12), 1));
        $this->assertSame(0.25, $p->nextWaitS(null, null, null, 1, 30, 0, 0));
        $this->assertSame(8.0, $p->nextWaitS(null, null, null, 10, 30, 1, 0));
    }

    public function testVerifiesBothCallbackSchemesAndAPostback(): void
    {
        $body = '{"event":"lead.accepted","external_lead_id":"x","internal_id":"le-1"}';
        $ours = ['X-Signature' => 'sha256=' . hash_hmac('sha256', $body, 'cs_a'), 'X-Timestamp' => '1700000000'];
        $this->assertSame('le-1', Webhooks::verifyCallback($ours, $body, ['cs_b', 'cs_a'], 300, 1700000100)['payload']['internal_id']);
        $this->assertCode('invalid_signature', fn () => Webhooks::verifyCallback($ours, $body, 'cs_b', 300, 1700000100));
        $key = str_repeat('k', 24);
        $sig = base64_encode(hash_hmac('sha256', "le-1:1.1700000000.$body", $key, true));
        $swh = ['webhook-id' => 'le-1:1', 'webhook-timestamp' => '1700000000', 'webhook-signature' => "v1,AAAA v1,$sig"];
        $secret = 'whsec_' . base64_encode($key);
        $this->assertSame('le-1:1', Webhooks::verifyCallback($swh, $body, $secret, 300, 1700000000)['event_id']);
        $this->assertCode('invalid_timestamp', fn () => Webhooks::verifyCallback($swh, $body, $secret, 300, 1700000400));
        $url = 'https://t.example/pb?e=lead.ftd';
        $signature = 'sha256=' . hash_hmac('sha256', $url, 'tok');
        $this->assertTrue(Webhooks::verifyPostback($url, $signature, 'tok'));
        $this->assertCode('invalid_signature', fn () => Webhooks::verifyPostback($url . 'x', $signature, 'tok'));
    }

    private function assertCode(string $code, callable $fn): void
    {
        try {
            $fn();
            $this->fail("expected LeadIntakeError $code");
        } catch (LeadIntakeError $e) {
            $this->assertSame($code, $e->reasonCode);
        }
    }
}

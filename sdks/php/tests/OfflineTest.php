<?php

declare(strict_types=1);

use LeadIntake\Client;
use LeadIntake\LeadIntakeError;
use LeadIntake\RetryPolicy;
use LeadIntake\SendResult;
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

    // Against a stand-in that answers 503 twice: every retry carries the same Idempotency-Key, the same bytes
    // and their signature, and the answer after the retries is the one returned.
    public function testKeepsOneKeyAndSignsTheSameBytesOnEveryRetry(): void
    {
        $seen = self::withStandIn('pending-router.php', function (string $url) use (&$result): void {
            $client = new Client($url, 'lk_test', 'hs_test', new RetryPolicy(baseDelayS: 0.01));
            $result = $client->sendLead(['phone' => '+447911123456', 'first_name' => 'Zoë']);
        });
        $this->assertSame([SendResult::ACCEPTED, 'le-7', 3, false], [$result->outcome, $result->leadId, $result->attempts, $result->replay]);
        $this->assertSame([$result->idempotencyKey], array_values(array_unique(array_column($seen, 'key'))));
        $this->assertCount(1, array_unique(array_column($seen, 'body')));
        foreach ($seen as $request) {
            $this->assertSame('sha256=' . hash_hmac('sha256', $request['body'], 'hs_test'), $request['signature']);
        }
    }

    // Each page waits out its 429 as Retry-After asks, signs the empty body, and the generator follows next_cursor.
    public function testIteratesLeadPagesEachAfterWaitingOutIts429(): void
    {
        $retried = [];
        $started = microtime(true);
        $seen = self::withStandIn('reporting-router.php', function (string $url) use (&$ids, &$retried): void {
            $client = new Client($url, 'lk_test', 'hs_test', onRetry: function (array $r) use (&$retried): void {
                $retried[] = [$r['status'], $r['retry_after_s']];
            });
            $ids = array_column(iterator_to_array($client->leads(['sub_id' => 'sub 1'], limit: 1), false), 'external_id');
        });
        $this->assertSame(['a-2', 'a-1'], $ids);
        $this->assertSame([[429, 1], [429, 1]], $retried);
        $this->assertGreaterThanOrEqual(2, microtime(true) - $started);
        $this->assertSame(['sha256=' . hash_hmac('sha256', '', 'hs_test')], array_values(array_unique(array_column($seen, 'signature'))));
        $this->assertSame('/api/v1/leads?sub_id=sub%201&limit=1', $seen[0]['uri']);
        $this->assertSame('/api/v1/leads?sub_id=sub%201&cursor=2026-11-22T10%3A00%3A00.000Z%7Cle-2&limit=1', $seen[2]['uri']);
    }

    public function testRetriesARequestWithoutAnswerUntilTheDeadlineThenThrowsNetworkError(): void
    {
        $retried = [];
        $closed = new Client('http://127.0.0.1:9/api', 'lk_test', 'hs_test', new RetryPolicy(deadlineS: 1.5, baseDelayS: 0.1), onRetry: function (array $r) use (&$retried): void {
            $retried[] = $r['status'];
        });
        $started = microtime(true);
        $this->assertCode('network_error', fn () => $closed->sendLead(['phone' => '+447911123456']));
        $this->assertGreaterThanOrEqual(2, count($retried));
        $this->assertSame([null], array_values(array_unique($retried)));
        // At the deadline, not retrying past it: a loaded machine's timers may fire a little late.
        $this->assertLessThan(1.5 + 0.5, microtime(true) - $started);
    }

    /**
     * Runs $fn with the base URL of a `php -S` stand-in served by tests/$router; answers the requests it saw.
     *
     * @return list<array<string, mixed>>
     */
    private static function withStandIn(string $router, callable $fn): array
    {
        $dir = sys_get_temp_dir() . '/lead-intake-stand-in-' . bin2hex(random_bytes(4));
        mkdir($dir);
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr((string) stream_socket_get_name($socket, false), 10);
        fclose($socket);
        $server = proc_open([PHP_BINARY, '-S', "127.0.0.1:$port", __DIR__ . "/$router"], [1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, null, getenv() + ['STAND_IN_DIR' => $dir]);
        for ($i = 0; $i < 100 && !@fsockopen('127.0.0.1', $port); $i++) {
            usleep(50_000);
        }
        try {
            $fn("http://127.0.0.1:$port/api");
        } finally {
            proc_terminate($server);
            proc_close($server);
            $files = glob("$dir/*.json") ?: [];
            natsort($files);
            $seen = array_map(fn ($f) => json_decode((string) file_get_contents($f), true), array_values($files));
            array_map('unlink', $files);
            rmdir($dir);
        }
        return $seen;
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

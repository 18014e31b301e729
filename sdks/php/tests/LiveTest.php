<?php

declare(strict_types=1);

use LeadIntake\Client;
use LeadIntake\LeadIntakeError;
use LeadIntake\RetryPolicy;
use LeadIntake\SendResult;
use LeadIntake\Webhooks;
use PHPUnit\Framework\TestCase;

// Against a running service: the partners named by the LEAD_INTAKE_* variables (sdks/README.md). The tests
// run in the order written; the callback endpoint is `php -S` with tests/callback-router.php.
final class LiveTest extends TestCase
{
    private static mixed $server = null;
    private static string $dir = '';

    public static function setUpBeforeClass(): void
    {
        self::$dir = sys_get_temp_dir() . '/lead-intake-callbacks-' . bin2hex(random_bytes(4));
        mkdir(self::$dir);
        $secrets = ['/spec' => [self::env('LEAD_INTAKE_CALLBACK_SECRET')], '/rotated' => self::rotatedSecrets()];
        $env = getenv() + ['CALLBACK_DIR' => self::$dir, 'CALLBACK_SECRETS' => json_encode($secrets)];
        $address = '127.0.0.1:' . self::env('LEAD_INTAKE_CALLBACK_PORT');
        $command = [PHP_BINARY, '-S', $address, __DIR__ . '/callback-router.php'];
        self::$server = proc_open($command, [0 => ['pipe', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, null, $env);
        for ($i = 0; $i < 100 && !@fsockopen('127.0.0.1', (int) self::env('LEAD_INTAKE_CALLBACK_PORT')); $i++) {
            usleep(50_000);
        }
    }

    public static function tearDownAfterClass(): void
    {
        proc_terminate(self::$server);
        proc_close(self::$server);
        array_map('unlink', glob(self::$dir . '/*.json') ?: []);
        rmdir(self::$dir);
    }

    // First: the tight partner's window frees a few seconds after the tests start.
    public function testWaitsOutA429AsLongAsRetryAfterAsks(): void
    {
        $retries = [];
        $creds = [self::env('LEAD_INTAKE_TIGHT_API_KEY'), self::env('LEAD_INTAKE_TIGHT_HMAC_SECRET')];
        $tight = new Client(self::env('LEAD_INTAKE_URL'), ...$creds, onRetry: function (array $r) use (&$retries): void {
            $retries[] = $r;
        });
        $started = microtime(true);
        $result = $tight->sendLead(['phone' => self::phone()]);
        $this->assertSame([SendResult::ACCEPTED, 2], [$result->outcome, $result->attempts]);
        $this->assertSame([429, 'rate_limit_exceeded'], [$retries[0]['status'], $retries[0]['error']]);
        $this->assertGreaterThanOrEqual($retries[0]['retry_after_s'], $retries[0]['wait_s']);
        $this->assertGreaterThanOrEqual($retries[0]['wait_s'], microtime(true) - $started);

        // Now the window holds that lead for a minute: a deadline shorter than the wait gives up at once.
        $hurried = new Client(self::env('LEAD_INTAKE_URL'), ...$creds, policy: new RetryPolicy(deadlineS: 2));
        $at = microtime(true);
        $e = $this->errorOf(fn () => $hurried->sendLead(['phone' => self::phone()]));
        $this->assertSame(['rate_limit_exceeded', 429], [$e->reasonCode, $e->status]);
        $this->assertGreaterThan(2, $e->retryAfterS);
        $this->assertLessThan(2, microtime(true) - $at);
    }

    public function testSendsReplaysAndFindsTheStatusAndItsVerifiedCallback(): void
    {
        $externalId = 'php-' . bin2hex(random_bytes(8));
        $lead = ['phone' => self::phone(), 'external_id' => $externalId, 'country' => 'GB'];
        $first = self::client()->sendLead($lead);
        $this->assertSame([SendResult::ACCEPTED, false, 1], [$first->outcome, $first->replay, $first->attempts]);
        $again = self::client()->sendLead($lead, $first->idempotencyKey);
        $this->assertSame([SendResult::ACCEPTED, $first->leadId, true], [$again->outcome, $again->leadId, $again->replay]);
        $status = self::client()->leadStatus($externalId);
        $this->assertSame([$first->leadId, 'new', false], [$status['id'], $status['our_status'], $status['is_depositor']]);

        $secret = self::env('LEAD_INTAKE_CALLBACK_SECRET');
        $cb = $this->waitForCallback('/spec', $externalId);
        $this->assertSame('ok', $cb['verdict']);
        $tampered = str_replace('"new"', '"ftd"', $cb['raw']);
        $this->assertSame('invalid_signature', $this->errorOf(fn () => Webhooks::verifyCallback($cb['headers'], $tampered, $secret))->reasonCode);
        $this->assertSame('invalid_signature', $this->errorOf(fn () => Webhooks::verifyCallback($cb['headers'], $cb['raw'], 'cs_not_the_secret'))->reasonCode);
        $late = (float) $cb['headers']['x-timestamp'] + 301;
        $this->assertSame('invalid_timestamp', $this->errorOf(fn () => Webhooks::verifyCallback($cb['headers'], $cb['raw'], $secret, 300, $late))->reasonCode);
    }

    public function testTellsADuplicateByTheLeadItMatched(): void
    {
        $phone = self::phone();
        $first = self::client()->sendLead(['phone' => $phone]);
        $dup = self::client()->sendLead(['phone' => $phone]);
        $this->assertSame([SendResult::DUPLICATE, $first->leadId, false], [$dup->outcome, $dup->leadId, $dup->replay]);
        $this->assertMatchesRegularExpression('/^matched_lead:\d+$/', (string) $dup->reason);
    }

    public function testRefusesWithTheReason(): void
    {
        foreach ([
            [['phone' => 'not a phone'], 'validation_error', 'invalid_format:phone'],
            [['phone' => self::phone(), 'country' => 'RU'], 'rejected', 'country_blocked:RU'],
            [['phone' => self::phone(), 'source' => 'blocked-src'], 'rejected', 'source_blocked'],
        ] as [$lead, $status, $reason]) {
            $r = self::client()->sendLead($lead);
            $this->assertSame([SendResult::REFUSED, $status, $reason], [$r->outcome, $r->status, $r->reason]);
        }
    }

    public function testThrowsLeadIntakeErrorWithTheCodeWithoutRetrying(): void
    {
        $e = $this->errorOf(fn () => self::client()->leadStatus('no-such-lead'));
        $this->assertSame(['not_found', 404], [$e->reasonCode, $e->status]);
        $forged = new Client(self::env('LEAD_INTAKE_URL'), self::env('LEAD_INTAKE_API_KEY'), 'hs_wrong');
        $e = $this->errorOf(fn () => $forged->sendLead(['phone' => self::phone()]));
        $this->assertSame(['invalid_signature', 403], [$e->reasonCode, $e->status]);
    }

    public function testDuringARotationTheOldKeySendsAndEitherSecretVerifies(): void
    {
        $old = new Client(self::env('LEAD_INTAKE_URL'), self::env('LEAD_INTAKE_ROTATED_API_KEY_OLD'), self::env('LEAD_INTAKE_ROTATED_HMAC_SECRET_OLD'));
        $externalId = 'php-rot-' . bin2hex(random_bytes(8));
        $this->assertSame(SendResult::ACCEPTED, $old->sendLead(['phone' => self::phone(), 'external_id' => $externalId])->outcome);
        $cb = $this->waitForCallback('/rotated', $externalId);
        $this->assertSame('ok', $cb['verdict']);
        $this->assertCount(2, explode(' ', $cb['headers']['webhook-signature']));
        foreach (self::rotatedSecrets() as $secret) {
            $this->assertSame($cb['headers']['webhook-id'], Webhooks::verifyCallback($cb['headers'], $cb['raw'], $secret)['event_id']);
        }
        $tampered = str_replace($externalId, 'someone-else', $cb['raw']);
        foreach ([[$tampered, self::rotatedSecrets()], [$cb['raw'], 'whsec_bm90IHRoZSBzZWNyZXQ=']] as [$body, $secrets]) {
            $this->assertSame('invalid_signature', $this->errorOf(fn () => Webhooks::verifyCallback($cb['headers'], $body, $secrets))->reasonCode);
        }
    }

    public function testListsOwnLeadsByAFilterAPageAtATimeAndReadsTodaysReport(): void
    {
        $today = gmdate('Y-m-d');
        $subId = 'php-sub-' . bin2hex(random_bytes(8));
        $ours = [];
        for ($i = 0; $i < 3; $i++) {
            $ours[] = $externalId = 'php-rep-' . bin2hex(random_bytes(8));
            $lead = ['phone' => self::phone(), 'external_id' => $externalId, 'sub_id' => $subId, 'country' => 'GB'];
            $this->assertSame(SendResult::ACCEPTED, self::client()->sendLead($lead)->outcome);
        }
        sort($ours);
        // Another partner's lead with the same sub_id is never the first partner's to see.
        $other = new Client(self::env('LEAD_INTAKE_URL'), self::env('LEAD_INTAKE_ROTATED_API_KEY_OLD'), self::env('LEAD_INTAKE_ROTATED_HMAC_SECRET_OLD'));
        $theirs = 'php-other-' . bin2hex(random_bytes(8));
        $this->assertSame(SendResult::ACCEPTED, $other->sendLead(['phone' => self::phone(), 'external_id' => $theirs, 'sub_id' => $subId])->outcome);
        $ids = static function (iterable $leads): array {
            $ids = [];
            foreach ($leads as $lead) {
                $ids[] = $lead['external_id'];
            }
            sort($ids);
            return $ids;
        };

        $page = self::client()->listLeads(['sub_id' => $subId, 'country' => 'GB']);
        $this->assertSame([$ours, null], [$ids($page->items), $page->nextCursor]);
        foreach ($page->items as $lead) {
            $this->assertMatchesRegularExpression('/^\+44 \d{2}\*\* \*\*\*\d{3}$/', $lead['phone']);
        }

        $first = self::client()->listLeads(['sub_id' => $subId], limit: 2);
        $this->assertCount(2, $first->items);
        $this->assertNotNull($first->nextCursor);
        $second = self::client()->listLeads(['sub_id' => $subId], $first->nextCursor, 2);
        $this->assertSame($ours, $ids([...$first->items, ...$second->items]));

        $this->assertSame($ours, $ids(self::client()->leads(['sub_id' => $subId], limit: 1)));
        $this->assertSame([$theirs], $ids($other->listLeads(['sub_id' => $subId])->items));

        // The report's figures are counted from the pipeline's events: wait until today's row has our leads.
        for ($until = microtime(true) + 30; ; usleep(250_000)) {
            $report = self::client()->reports($today, $today);
            $row = array_values(array_filter($report['by_day'], fn (array $d): bool => $d['day'] === $today))[0] ?? null;
            if (($row !== null && $row['accepted'] >= count($ours)) || microtime(true) > $until) {
                break;
            }
        }
        $this->assertSame([$today, $today], [$report['from'], $report['to']]);
        $this->assertGreaterThanOrEqual(count($ours), $report['totals']['accepted']);
        $e = $this->errorOf(fn () => self::client()->reports($today, 'not-a-day'));
        $this->assertSame(['invalid_request', 422], [$e->reasonCode, $e->status]);
    }

    /** @return array{path: string, headers: array<string, string>, raw: string, verdict: string} */
    private function waitForCallback(string $path, string $externalId): array
    {
        for ($until = microtime(true) + 30; microtime(true) < $until; usleep(100_000)) {
            foreach (glob(self::$dir . '/*.json') ?: [] as $file) {
                $cb = json_decode((string) file_get_contents($file), true);
                if ($cb['path'] === $path && (json_decode($cb['raw'], true)['external_lead_id'] ?? null) === $externalId) {
                    return $cb;
                }
            }
        }
        $this->fail("no callback at $path within 30 s");
    }

    private function errorOf(callable $fn): LeadIntakeError
    {
        try {
            $fn();
        } catch (LeadIntakeError $e) {
            return $e;
        }
        $this->fail('expected a LeadIntakeError');
    }

    private static function client(): Client
    {
        return new Client(self::env('LEAD_INTAKE_URL'), self::env('LEAD_INTAKE_API_KEY'), self::env('LEAD_INTAKE_HMAC_SECRET'));
    }

    /** @return list<string> */
    private static function rotatedSecrets(): array
    {
        return [self::env('LEAD_INTAKE_ROTATED_CALLBACK_SECRET_OLD'), self::env('LEAD_INTAKE_ROTATED_CALLBACK_SECRET')];
    }

    private static function phone(): string
    {
        return sprintf('+44791%07d', random_int(0, 9_999_999));
    }

    private static function env(string $name): string
    {
        $value = getenv($name);
        if ($value === false || $value === '') {
            throw new RuntimeException("$name is not set (see sdks/README.md)");
        }
        return $value;
    }
}

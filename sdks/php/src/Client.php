<?php

declare(strict_types=1);

namespace LeadIntake;

/**
 * The partner API: $baseUrl ends in /api. Every request is signed (HMAC-SHA256 of the exact bytes sent,
 * with the HMAC secret) and retried only when that is safe, within the policy's deadline.
 */
final class Client
{
    private readonly string $base;

    /** @param (callable(array<string, mixed>): void)|null $onRetry told before each wait, e.g. to log it */
    public function __construct(
        string $baseUrl,
        private readonly string $apiKey,
        private readonly string $hmacSecret,
        private readonly RetryPolicy $policy = new RetryPolicy(),
        private readonly float $attemptTimeoutS = 10.0,
        private readonly mixed $onRetry = null,
    ) {
        $this->base = rtrim($baseUrl, '/');
    }

    /**
     * Sends one lead. The key (made here when not given) stays the same on every retry, so a retried
     * request is answered once; the bytes signed are the bytes sent.
     *
     * @param array<string, mixed> $lead
     */
    public function sendLead(array $lead, ?string $idempotencyKey = null): SendResult
    {
        $key = $idempotencyKey ?? self::uuid4();
        $body = json_encode($lead, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
        [$status, $answer, $attempts] = $this->request('POST', '/v1/inbound/leads', $body, [
            'Content-Type: application/json',
            'Idempotency-Key: ' . $key,
        ]);
        $kind = is_array($answer) ? ($answer['status'] ?? null) : null;
        $replay = is_array($answer) && ($answer['replay'] ?? false) === true;
        if (($kind === 'accepted' || $kind === 'duplicate') && is_string($answer['id'] ?? null)) {
            $outcome = $kind === 'accepted' ? SendResult::ACCEPTED : SendResult::DUPLICATE;
            return new SendResult($outcome, $answer['id'], $kind, $answer['reason'], $replay, $key, $attempts);
        }
        if (($kind === 'validation_error' || $kind === 'rejected') && is_string($answer['reason'] ?? null)) {
            return new SendResult(SendResult::REFUSED, null, $kind, $answer['reason'], $replay, $key, $attempts);
        }
        throw self::unexpected($status, $answer);
    }

    /** @return array{id: string, external_id: string, status: string, our_status: string, is_depositor: bool, created_at: string, updated_at: string} */
    public function leadStatus(string $externalId): array
    {
        return $this->get('/v1/inbound/leads/' . rawurlencode($externalId) . '/status', []);
    }

    /**
     * One page of your own leads, newest first. Filters: status (our code), country, source, sub_id, click_id,
     * external_id, from and to (created at or after, before; a string or a DateTimeInterface). A filter checked
     * entry by entry may answer a short, even empty, page that is not the last: only a null nextCursor ends it.
     *
     * @param array<string, string|\DateTimeInterface|null> $filters
     * @param ?int $limit the page size, 1-200 (the server's default 50)
     */
    public function listLeads(array $filters = [], ?string $cursor = null, ?int $limit = null): LeadPage
    {
        $answer = $this->get('/v1/leads', $filters + ['cursor' => $cursor, 'limit' => $limit]);
        return new LeadPage($answer['items'], $answer['next_cursor']);
    }

    /**
     * Every lead the filters match, a page fetched when the one before is used up.
     *
     * @param array<string, string|\DateTimeInterface|null> $filters
     * @return \Generator<int, array<string, mixed>>
     */
    public function leads(array $filters = [], ?int $limit = null): \Generator
    {
        $cursor = null;
        do {
            $page = $this->listLeads($filters, $cursor, $limit);
            yield from $page->items;
            $cursor = $page->nextCursor;
        } while ($cursor !== null);
    }

    /**
     * Your traffic per reporting day (the partner's time_zone) from $from to $to (YYYY-MM-DD, both included): from, to, totals (received,
     * accepted, duplicates, validation_errors, rejected, rejected_by_reason, contacted, ftd, ftd_rate,
     * chargebacks, chargeback_rate) and by_day, one row with those figures and its day for a day with traffic.
     *
     * @return array{from: string, to: string, totals: array<string, mixed>, by_day: list<array<string, mixed>>}
     */
    public function reports(string $from, string $to): array
    {
        return $this->get('/v1/reports', ['from' => $from, 'to' => $to]);
    }

    /**
     * @param array<string, string|int|\DateTimeInterface|null> $query
     * @return array<string, mixed>
     */
    private function get(string $path, array $query): array
    {
        $params = [];
        foreach ($query as $name => $value) {
            if ($value !== null) {
                $params[$name] = $value instanceof \DateTimeInterface ? $value->format(\DateTimeInterface::RFC3339_EXTENDED) : (string) $value;
            }
        }
        $qs = http_build_query($params, '', '&', PHP_QUERY_RFC3986);
        [$status, $answer] = $this->request('GET', $path . ($qs === '' ? '' : '?' . $qs), '', []);
        if ($status !== 200 || !is_array($answer)) {
            throw self::unexpected($status, $answer);
        }
        return $answer;
    }

    /**
     * @param list<string> $headers
     * @return array{int, mixed, int}
     */
    private function request(string $method, string $path, string $body, array $headers): array
    {
        $started = microtime(true);
        $headers[] = 'X-Signature: sha256=' . hash_hmac('sha256', $body, $this->hmacSecret);
        for ($attempt = 1; ; $attempt++) {
            [$status, $answer, $error, $retryAfter, $failure] = $this->attempt($method, $path, $body, $headers, $started);
            $remaining = $this->policy->deadlineS - (microtime(true) - $started);
            $wait = $this->policy->nextWaitS($status, $error, $retryAfter, $attempt, $remaining, mt_rand() / mt_getrandmax(), microtime(true));
            if ($wait === null) {
                if ($status !== null && $error === null) {
                    return [$status, $answer, $attempt];
                }
                if ($status === null) {
                    throw new LeadIntakeError('network_error', 'No answer: ' . $failure);
                }
                $message = is_array($answer) ? (string) ($answer['message'] ?? '') : '';
                throw new LeadIntakeError((string) $error, $message, $status, RetryPolicy::retryAfterSeconds($retryAfter, microtime(true)));
            }
            if ($this->onRetry !== null) {
                ($this->onRetry)([
                    'attempt' => $attempt,
                    'status' => $status,
                    'error' => $error,
                    'retry_after_s' => RetryPolicy::retryAfterSeconds($retryAfter, microtime(true)),
                    'wait_s' => $wait,
                ]);
            }
            usleep((int) round($wait * 1e6));
        }
    }

    /**
     * @param list<string> $headers
     * @return array{?int, mixed, ?string, ?string, ?string} status, parsed body, error code, Retry-After, failure
     */
    private function attempt(string $method, string $path, string $body, array $headers, float $started): array
    {
        $remaining = max(0.001, $this->policy->deadlineS - (microtime(true) - $started));
        $headers[] = 'Authorization: Bearer ' . $this->apiKey;
        $headers[] = 'X-Timestamp: ' . time();
        $retryAfter = null;
        $curl = curl_init($this->base . $path);
        curl_setopt_array($curl, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_HTTPHEADER => $headers,
            CURLOPT_TIMEOUT_MS => (int) ceil(min($this->attemptTimeoutS, $remaining) * 1000),
            CURLOPT_HEADERFUNCTION => static function ($_, string $line) use (&$retryAfter): int {
                if (stripos($line, 'retry-after:') === 0) {
                    $retryAfter = trim(substr($line, 12));
                }
                return strlen($line);
            },
        ]);
        if ($method === 'POST') {
            curl_setopt($curl, CURLOPT_POSTFIELDS, $body);
        }
        $raw = curl_exec($curl);
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        $failure = curl_error($curl);
        curl_close($curl);
        if ($raw === false || $status === 0) {
            return [null, null, null, null, $failure];
        }
        $answer = json_decode((string) $raw, true);
        $error = is_array($answer) && is_string($answer['error'] ?? null) ? $answer['error'] : null;
        return [$status, $answer ?? $raw, $error, $retryAfter, null];
    }

    private static function unexpected(?int $status, mixed $answer): LeadIntakeError
    {
        return new LeadIntakeError('unexpected_answer', sprintf('HTTP %d: %s', $status, json_encode($answer)), $status);
    }

    private static function uuid4(): string
    {
        $b = random_bytes(16);
        $b[6] = chr((ord($b[6]) & 0x0f) | 0x40);
        $b[8] = chr((ord($b[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($b), 4));
    }
}

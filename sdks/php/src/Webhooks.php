<?php

declare(strict_types=1);

namespace LeadIntake;

/** Verifying our callbacks (both signature schemes) and postbacks; every comparison is constant-time (hash_equals). */
final class Webhooks
{
    /**
     * Verifies a callback in either scheme we sign with: ours (X-Signature over the body, X-Timestamp) or
     * Standard Webhooks (webhook-signature over "id.timestamp.body", one signature per secret during a
     * rotation's grace). $secrets: the callback secret, or several while you switch between two. Returns the
     * event id (drop repeats by it), the event and the payload; throws LeadIntakeError invalid_signature or
     * invalid_timestamp (the signature is checked first).
     *
     * @param array<string, string> $headers
     * @param string|list<string> $secrets
     * @return array{event_id: string, event: string, timestamp: int, payload: array<string, mixed>}
     */
    public static function verifyCallback(array $headers, string $rawBody, string|array $secrets, int $toleranceS = 300, ?float $nowS = null): array
    {
        $h = array_change_key_case($headers, CASE_LOWER);
        $keys = is_string($secrets) ? [$secrets] : $secrets;
        $standard = isset($h['webhook-signature']);
        $timestamp = (string) ($h[$standard ? 'webhook-timestamp' : 'x-timestamp'] ?? '');
        $eventId = (string) ($h[$standard ? 'webhook-id' : 'x-event-id'] ?? '');
        $signed = false;
        foreach ($keys as $key) {
            $signed = $signed || ($standard
                ? self::standardMatches($key, $eventId, $timestamp, $rawBody, (string) $h['webhook-signature'])
                : self::oursMatches($key, $rawBody, (string) ($h['x-signature'] ?? '')));
        }
        if (!$signed) {
            throw new LeadIntakeError('invalid_signature', 'The callback signature does not verify');
        }
        if (!ctype_digit($timestamp) || abs(($nowS ?? microtime(true)) - (int) $timestamp) > $toleranceS) {
            throw new LeadIntakeError('invalid_timestamp', 'The callback timestamp is missing or outside the tolerance');
        }
        $payload = json_decode($rawBody, true, 512, JSON_THROW_ON_ERROR);
        return ['event_id' => $eventId, 'event' => (string) ($h['x-event'] ?? $payload['event'] ?? ''), 'timestamp' => (int) $timestamp, 'payload' => $payload];
    }

    /**
     * Verifies X-Postback-Signature: the HMAC of the full URL as it arrived (scheme, host, then the raw path
     * and query, undecoded) with your postback token. Throws LeadIntakeError invalid_signature.
     *
     * @param string|list<string> $secrets
     */
    public static function verifyPostback(string $fullUrl, ?string $signatureHeader, string|array $secrets): bool
    {
        foreach (is_string($secrets) ? [$secrets] : $secrets as $key) {
            if (hash_equals('sha256=' . hash_hmac('sha256', $fullUrl, $key), (string) $signatureHeader)) {
                return true;
            }
        }
        throw new LeadIntakeError('invalid_signature', 'The postback signature does not verify');
    }

    private static function oursMatches(string $secret, string $body, string $header): bool
    {
        return hash_equals(hash_hmac('sha256', $body, $secret), strtolower((string) preg_replace('/^sha256=/', '', $header)));
    }

    // A whsec_ secret is base64 of the key; any other secret (a cs_ one kept on switching) is its UTF-8 bytes.
    private static function standardMatches(string $secret, string $id, string $timestamp, string $body, string $header): bool
    {
        $key = str_starts_with($secret, 'whsec_') ? (string) base64_decode(substr($secret, 6), true) : $secret;
        $expected = base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", $key, true));
        $matched = false;
        foreach (explode(' ', $header) as $part) {
            $matched = $matched || (str_starts_with($part, 'v1,') && hash_equals($expected, substr($part, 3)));
        }
        return $matched;
    }
}

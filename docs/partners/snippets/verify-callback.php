<?php

const TOLERANCE_S = 300; // the X-Timestamp drift we accept, as the service does for your requests

// $headers: names in lower case; $rawBody: the exact bytes received (file_get_contents('php://input')).
// $seenEventIds: X-Event-Id values already handled, as keys (keep them in your database, e.g. a unique key).
// Returns 'ok', 'bad_signature', 'stale' or 'duplicate'.
function verify_callback(string $secret, array $headers, string $rawBody, array &$seenEventIds, ?float $nowS = null): string
{
    $expected = hash_hmac('sha256', $rawBody, $secret);
    $given = strtolower(preg_replace('/^sha256=/', '', $headers['x-signature'] ?? ''));
    // Constant time: never compare signatures with === (it leaks how many characters matched).
    if (!hash_equals($expected, $given)) {
        return 'bad_signature';
    }
    $timestamp = $headers['x-timestamp'] ?? '';
    if (!ctype_digit($timestamp) || abs(($nowS ?? time()) - (int) $timestamp) > TOLERANCE_S) {
        return 'stale';
    }
    $eventId = $headers['x-event-id'] ?? '';
    if (isset($seenEventIds[$eventId])) {
        return 'duplicate'; // a retry of one we have: answer 2xx, do nothing
    }
    $seenEventIds[$eventId] = true;
    return 'ok';
}

<?php

declare(strict_types=1);

// A stand-in for the partner API's lead list, served by `php -S`: writes each request into STAND_IN_DIR,
// answers a URI's first request 429 (Retry-After: 1), then the page its cursor names.
$dir = (string) getenv('STAND_IN_DIR');
$headers = array_change_key_case(getallheaders(), CASE_LOWER);
$seen = array_map(fn ($f) => json_decode((string) file_get_contents($f), true)['uri'], glob("$dir/*.json") ?: []);
$n = count($seen) + 1;
file_put_contents("$dir/$n.json", json_encode(['uri' => $_SERVER['REQUEST_URI'], 'signature' => $headers['x-signature'] ?? '', 'body' => '']));
$pages = [
    '' => ['items' => [['external_id' => 'a-2']], 'next_cursor' => '2026-11-22T10:00:00.000Z|le-2'],
    '2026-11-22T10:00:00.000Z|le-2' => ['items' => [['external_id' => 'a-1']], 'next_cursor' => null],
];
header('Content-Type: application/json');
header('Retry-After: 1');
$first = !in_array($_SERVER['REQUEST_URI'], $seen, true);
http_response_code($first ? 429 : 200);
echo $first ? '{"error":"rate_limit_exceeded","message":"Try again"}' : json_encode($pages[$_GET['cursor'] ?? '']);

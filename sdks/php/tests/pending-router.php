<?php

declare(strict_types=1);

// A stand-in for the partner API, served by `php -S`: writes each request into STAND_IN_DIR and answers the
// first two 503 decision_pending (Retry-After: 0), then accepts.
$dir = (string) getenv('STAND_IN_DIR');
$headers = array_change_key_case(getallheaders(), CASE_LOWER);
$request = ['key' => $headers['idempotency-key'] ?? '', 'signature' => $headers['x-signature'] ?? '', 'body' => file_get_contents('php://input')];
$n = count(glob("$dir/*.json") ?: []) + 1;
file_put_contents("$dir/$n.json", json_encode($request));
header('Content-Type: application/json');
header('Retry-After: 0');
http_response_code($n < 3 ? 503 : 200);
echo $n < 3 ? '{"error":"decision_pending","message":"Not decided in time"}' : '{"id":"le-7","status":"accepted","reason":null}';

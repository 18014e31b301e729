<?php

declare(strict_types=1);

// A partner's callback endpoint, served by `php -S`: verifies each callback with the secrets of its path
// (CALLBACK_SECRETS, JSON) before anything else, answers 204 or 401, and writes what came into CALLBACK_DIR
// for the tests to look at.
require __DIR__ . '/bootstrap.php';

use LeadIntake\LeadIntakeError;
use LeadIntake\Webhooks;

$path = (string) parse_url((string) $_SERVER['REQUEST_URI'], PHP_URL_PATH);
$secrets = json_decode((string) getenv('CALLBACK_SECRETS'), true)[$path] ?? [];
$headers = array_change_key_case(getallheaders(), CASE_LOWER);
$raw = (string) file_get_contents('php://input');
$verdict = 'ok';
try {
    Webhooks::verifyCallback($headers, $raw, $secrets);
} catch (LeadIntakeError $e) {
    $verdict = $e->reasonCode;
}
$record = ['path' => $path, 'headers' => $headers, 'raw' => $raw, 'verdict' => $verdict];
file_put_contents(getenv('CALLBACK_DIR') . '/' . uniqid('cb-', true) . '.json', json_encode($record));
http_response_code($verdict === 'ok' ? 204 : 401);

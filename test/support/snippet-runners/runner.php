<?php
// Runs the PHP snippet of docs/partners: one JSON case a line on stdin ({secret, headers,
// body_base64, now}), one verdict a line on stdout; repeats are remembered across lines.
require __DIR__ . '/../../../docs/partners/snippets/verify-callback.php';

$seen = [];
while (($line = fgets(STDIN)) !== false) {
    $c = json_decode($line, true);
    echo verify_callback($c['secret'], $c['headers'], base64_decode($c['body_base64']), $seen, $c['now']), "\n";
}

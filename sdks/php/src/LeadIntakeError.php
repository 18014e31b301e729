<?php

declare(strict_types=1);

namespace LeadIntake;

/**
 * The one error the SDK throws. $code is the service's error code (docs/errors.md), or one of the SDK's
 * own: network_error (no answer), invalid_signature / invalid_timestamp (a callback or postback that does
 * not verify) and unexpected_answer (an answer the partner API never gives).
 */
final class LeadIntakeError extends \RuntimeException
{
    public function __construct(
        public readonly string $reasonCode,
        string $message,
        public readonly ?int $status = null,
        public readonly ?int $retryAfterS = null,
    ) {
        parent::__construct($message);
    }
}

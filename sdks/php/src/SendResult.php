<?php

declare(strict_types=1);

namespace LeadIntake;

/**
 * What sendLead got: accepted (leadId is the new lead), duplicate (leadId is the lead it matched, reason
 * matched_lead:<n> or external_id_taken:<n>) or refused (status validation_error or rejected, with the
 * reason, e.g. missing_required:phone or country_blocked:RU).
 */
final class SendResult
{
    public const ACCEPTED = 'accepted';
    public const DUPLICATE = 'duplicate';
    public const REFUSED = 'refused';

    public function __construct(
        public readonly string $outcome,
        public readonly ?string $leadId,
        public readonly ?string $status,
        public readonly ?string $reason,
        public readonly bool $replay,
        public readonly string $idempotencyKey,
        public readonly int $attempts,
    ) {
    }
}

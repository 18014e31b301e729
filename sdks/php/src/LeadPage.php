<?php

declare(strict_types=1);

namespace LeadIntake;

/**
 * A page of GET /api/v1/leads: your own leads, newest first, with their phones masked.
 *
 * @phpstan-type PartnerLead array{id: string, external_id: string, status: string, our_status: string, is_depositor: bool, reason: ?string, country: ?string, source: ?string, phone: ?string, test: bool, created_at: string, updated_at: string}
 */
final class LeadPage
{
    /**
     * @param list<PartnerLead> $items
     * @param ?string $nextCursor pass it as the cursor of the next page; null on the last
     */
    public function __construct(
        public readonly array $items,
        public readonly ?string $nextCursor,
    ) {
    }
}

import { VALIDATION_REASONS } from '../validation-reasons';
import { ref, type Json, type PartnerDocSettings } from './doc-parts';
import { errorResponses, INTAKE_ERRORS, retryAfter } from './error-answers';
import { DUPLICATE_REASONS, INTAKE_EXAMPLES, REJECTED_REASONS } from './intake-examples';

// 409 and 422 carry either an intake result or an error of the registry.
function mergedResponse(error: Json, description: string, examples: Json): Json {
  const content = (error.content as { 'application/json': { examples: Json } })['application/json'];
  return {
    ...error,
    ...(error.headers ? { headers: retryAfter(false) } : {}),
    description: `${description} Or an error: ${String(error.description)}`,
    content: {
      'application/json': {
        schema: { oneOf: [ref('IntakeResult'), ref('Error')] },
        examples: { ...examples, ...content.examples },
      },
    },
  };
}

// POST /api/v1/inbound/leads (spec 4.1).
export function intakeOperation(s: PartnerDocSettings): Json {
  const errors = errorResponses(INTAKE_ERRORS, s);
  const validationReasons = Object.entries(VALIDATION_REASONS)
    .map(([r, what]) => `\`${r}\` (${what})`)
    .join('; ');
  return {
    operationId: 'submitLead',
    tags: ['intake'],
    summary: 'Submit a lead (spec 4.1)',
    description:
      'Checked in this order: API key, disabled partner and X-Timestamp; Content-Type and size' +
      ` (${s.bodyLimitBytes} bytes at most); X-Signature over the exact body bytes; rate limit; Idempotency-Key; JSON;` +
      ' field_mapping; validation; then the decision. A lead.accepted callback follows an acceptance.',
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        description:
          'Unique per logical request. The same key within the idempotency window returns the stored answer with' +
          ' replay: true; with another body it is refused (422 idempotency_key_reused). Missing: 422 missing_required:idempotency_key.' +
          ' Stands in for external_id when that is absent.',
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$',
        },
        example: 'order-7f3a-2026-11-22',
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: ref('InboundLead'),
          examples: {
            minimal: {
              summary: 'The recommended minimum',
              value: { external_id: 'aff-55120', phone: '+4915123456789', country: 'DE', source: 'google' },
            },
            full: {
              summary: 'Every canonical field',
              value: {
                external_id: 'aff-55121',
                first_name: 'Anna',
                last_name: 'Schmidt',
                email: 'anna@example.com',
                phone: '+4915123456780',
                country: 'Germany',
                country_code: 'DE',
                language: 'de',
                ip: '203.0.113.7',
                user_agent: 'Mozilla/5.0',
                source: 'google',
                funnel: 'crypto-1',
                sub_id: 's-17',
                click_id: 'c-9f2',
                landing_url: 'https://lp.example.com/de',
                metadata: { utm_campaign: 'nov' },
              },
            },
          },
        },
      },
    },
    responses: {
      200: {
        description:
          'Accepted (reason null, duration_ms); or the stored answer to the same Idempotency-Key (replay: true, no' +
          ' duration_ms; any earlier answer is replayed with its own HTTP status)',
        content: {
          'application/json': {
            schema: ref('IntakeResult'),
            examples: { accepted: INTAKE_EXAMPLES.accepted, replay: INTAKE_EXAMPLES.replay },
          },
        },
      },
      ...errors,
      409: mergedResponse(
        errors['409'] as Json,
        `Duplicate: id is the existing lead, reason ${DUPLICATE_REASONS.join(' or ')}.`,
        {
          matched_lead: INTAKE_EXAMPLES.matched_lead,
          external_id_taken: INTAKE_EXAMPLES.external_id_taken,
        },
      ),
      422: mergedResponse(
        errors['422'] as Json,
        `status validation_error with reason ${validationReasons}; or status rejected (a business rule or a cap; lead.rejected follows)` +
          ` with reason ${REJECTED_REASONS.join(', ')}. id is null.`,
        {
          missing_required: INTAKE_EXAMPLES.missing_required,
          invalid_format: INTAKE_EXAMPLES.invalid_format,
          country_blocked: INTAKE_EXAMPLES.country_blocked,
          ip_blocked: INTAKE_EXAMPLES.ip_blocked,
          risk_rejected: INTAKE_EXAMPLES.risk_rejected,
          cap_reached: INTAKE_EXAMPLES.cap_reached,
        },
      ),
    },
  };
}

import { ERRORS, type ErrorCode } from '../../shared/errors';
import { ref, type Json, type PartnerDocSettings } from './doc-parts';

// The error answers of the partner operations, from the error registry: one response per HTTP
// status, one example per error code.

// Which registry errors each partner operation can answer, grouped by HTTP status in the document.
export const INTAKE_ERRORS: readonly ErrorCode[] = [
  'malformed_json',
  'invalid_idempotency_key',
  'missing_api_key',
  'invalid_api_key',
  'invalid_signature',
  'invalid_timestamp',
  'partner_disabled',
  'idempotency_key_in_use',
  'payload_too_large',
  'unsupported_media_type',
  'idempotency_key_reused',
  'rate_limit_exceeded',
  'too_many_auth_failures',
  'decision_pending',
  'service_unavailable',
];
export const STATUS_ERRORS: readonly ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'invalid_signature',
  'invalid_timestamp',
  'partner_disabled',
  'not_found',
  'rate_limit_exceeded',
  'too_many_auth_failures',
  'service_unavailable',
];
// Answers that come with Retry-After: <seconds>.
const RETRY_AFTER: ReadonlySet<ErrorCode> = new Set([
  'idempotency_key_in_use',
  'rate_limit_exceeded',
  'too_many_auth_failures',
  'decision_pending',
  'service_unavailable',
]);

export const retryAfter = (required: boolean) => ({
  'Retry-After': { required, description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
});

// One example per registry error: its own message template with the placeholders filled in.
function errorExample(code: ErrorCode, s: PartnerDocSettings): Json {
  const params: Record<string, string | number> = {
    seconds: 12,
    tolerance: s.timestampToleranceS,
    limit: s.bodyLimitBytes,
  };
  return {
    summary: code,
    value: {
      error: code,
      message: ERRORS[code].message.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? '')),
    },
  };
}

const errorDescriptions = (codes: readonly ErrorCode[]) =>
  codes.map((c) => `\`${c}\`: ${ERRORS[c].message}`).join('; ');

// The error answers of one operation, one response per HTTP status; 409 and 422 of the intake are
// merged into the intake results by the caller.
export function errorResponses(codes: readonly ErrorCode[], s: PartnerDocSettings): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  const out: Record<string, Json> = {};
  for (const [status, group] of byStatus) {
    const headers = group.some((c) => RETRY_AFTER.has(c))
      ? retryAfter(group.every((c) => RETRY_AFTER.has(c)))
      : undefined;
    out[String(status)] = {
      description: errorDescriptions(group),
      ...(headers ? { headers } : {}),
      content: {
        'application/json': {
          schema: ref('Error'),
          examples: Object.fromEntries(group.map((c) => [c, errorExample(c, s)])),
        },
      },
    };
  }
  return out;
}

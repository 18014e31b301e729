import type { ErrorObject } from 'ajv';

// Every `reason` a validation_error intake result can carry (HTTP 422, id null). docs/partners.md's
// reason table is copied from this list. <field> is always a canonical field name (after the
// partner's field_mapping), never a value the partner sent.
export const VALIDATION_REASONS = {
  'missing_required:<field>':
    'A required field is absent, null or blank (phone; idempotency_key for the Idempotency-Key header; external_id when it is absent and the Idempotency-Key is longer than 128 characters)',
  'invalid_type:<field>':
    'The field has the wrong JSON type (e.g. a number for phone, a string for metadata); invalid_type:body when the body is not a JSON object',
  'invalid_format:<field>':
    'The value is malformed: phone not in international format with a leading + or not a possible number, email not an address, ip not IPv4/IPv6, landing_url not a URL, language not an ISO code, country_code not two letters; any string (in metadata, any key or value) that is not well-formed Unicode, such as a lone surrogate escape "\\ud800"',
  'invalid_value:<field>':
    'The value is well formed but unknown: country not an ISO 3166 code or English name, country_code not an assigned ISO 3166 code',
  'too_long:<field>':
    'The value is longer than its maximum length (metadata: more than 50 keys, or nested more than 32 levels deep)',
  'unknown_field:<field>':
    'A top-level key that is neither a canonical field nor the root of a field_mapping path; put extra data in metadata',
} as const;

export type ValidationReason = string;

export const reason = {
  missing: (field: string): ValidationReason => `missing_required:${field}`,
  invalidType: (field: string): ValidationReason => `invalid_type:${field}`,
  invalidFormat: (field: string): ValidationReason => `invalid_format:${field}`,
  invalidValue: (field: string): ValidationReason => `invalid_value:${field}`,
  tooLong: (field: string): ValidationReason => `too_long:${field}`,
  unknownField: (field: string): ValidationReason => `unknown_field:${field}`,
};

// The reason for ajv's first error on the inbound-lead schema (the shared validator stops at the first).
export function reasonFromAjv(error: ErrorObject): ValidationReason {
  const field = error.instancePath.split('/')[1] || 'body';
  switch (error.keyword) {
    case 'required':
      return reason.missing(String(error.params.missingProperty));
    case 'additionalProperties':
      return reason.unknownField(String(error.params.additionalProperty));
    case 'type':
      return reason.invalidType(field);
    case 'maxLength':
    case 'maxProperties':
      return reason.tooLong(field);
    case 'format':
    case 'pattern':
    case 'anyOf':
    case 'minLength':
      return reason.invalidFormat(field);
    default:
      return reason.invalidValue(field);
  }
}

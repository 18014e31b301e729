import type { Json } from './doc-parts';

// The intake results the document shows as examples, and the reasons a duplicate or refusal names.
const result = (summary: string, value: Json) => ({ summary, value });

export const INTAKE_EXAMPLES = {
  accepted: result('Accepted', { id: 'le-1042', status: 'accepted', reason: null, duration_ms: 38 }),
  replay: result('The stored answer to the same Idempotency-Key', {
    id: 'le-1042',
    status: 'accepted',
    reason: null,
    replay: true,
  }),
  matched_lead: result('Same phone or email inside the dedup window', {
    id: 'le-977',
    status: 'duplicate',
    reason: 'matched_lead:977',
  }),
  external_id_taken: result('This partner already sent this external_id', {
    id: 'le-977',
    status: 'duplicate',
    reason: 'external_id_taken:977',
  }),
  missing_required: result('validation_error', {
    id: null,
    status: 'validation_error',
    reason: 'missing_required:phone',
  }),
  invalid_format: result('validation_error', { id: null, status: 'validation_error', reason: 'invalid_format:email' }),
  country_blocked: result('rejected by a business rule', {
    id: null,
    status: 'rejected',
    reason: 'country_blocked:KP',
  }),
  ip_blocked: result('rejected by a business rule', { id: null, status: 'rejected', reason: 'ip_blocked' }),
  risk_rejected: result("rejected: the lead's fraud signals reach the partner's risk_threshold", {
    id: null,
    status: 'rejected',
    reason: 'risk_rejected',
  }),
  cap_reached: result('rejected: over one of your caps (here the daily one)', {
    id: null,
    status: 'rejected',
    reason: 'cap_reached:partner_daily',
  }),
};

export const REJECTED_REASONS = [
  'country_blocked:<cc>',
  'source_blocked',
  'ip_blocked',
  'risk_rejected',
  'cap_reached:<scope> (scope partner_daily, partner_hourly, country_daily or country_hourly: a cap on accepted leads in your time zone)',
];
export const DUPLICATE_REASONS = ['matched_lead:<n>', 'external_id_taken:<n>'];

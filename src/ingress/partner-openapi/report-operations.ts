import type { ErrorCode } from '../../shared/errors';
import { LEADS_QUERY, REPORTS_QUERY } from '../report-routes';
import { ref, type Json, type PartnerDocSettings } from './doc-parts';
import { errorResponses } from './error-answers';

// GET /api/v1/leads and GET /api/v1/reports: the partner's reporting calls.
export const REPORT_ERRORS: readonly ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'invalid_signature',
  'invalid_timestamp',
  'partner_disabled',
  'invalid_request',
  'rate_limit_exceeded',
  'too_many_auth_failures',
  'service_unavailable',
];

const SIGNED_GET =
  'X-Signature signs the empty body. Only your own leads are ever read: no parameter names a partner. Counted in a' +
  ' window of its own, at the same quota per minute as the status lookup.';

// Query parameters from the route's own query string schema (what the server checks).
function parameters(schema: { properties: Record<string, Json> }): Json[] {
  return Object.entries(schema.properties).map(([name, s]) => ({
    name,
    in: 'query',
    required: false,
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }));
}

const lead = {
  id: 'le-1042',
  external_id: 'aff-55120',
  status: 'in_progress',
  our_status: 'contacted',
  is_depositor: false,
  reason: null,
  country: 'GB',
  source: 'summer-promo',
  phone: '+44 79** ***456',
  test: false,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:15:00.000Z',
};

const figures = {
  received: 12,
  accepted: 10,
  duplicates: 1,
  validation_errors: 1,
  rejected: 0,
  rejected_by_reason: { cap: 0, country: 0, ip: 0, other: 0, risk: 0, source: 0 },
  contacted: 6,
  ftd: 2,
  ftd_rate: 0.2,
  chargebacks: 0,
  chargeback_rate: 0,
};

const ok = (description: string, schema: Json, value: Json) => ({
  description,
  content: { 'application/json': { schema, examples: { page: { summary: description, value } } } },
});

export function leadsOperation(s: PartnerDocSettings): Json {
  return {
    operationId: 'listLeads',
    tags: ['reports'],
    summary: 'Your leads, newest first, a cursor page at a time, filtered as in the portal',
    description:
      `${SIGNED_GET} Phones are masked; status is in your codes. A page may hold fewer items than limit, even none,` +
      ' and still not be the last: pass next_cursor as cursor (URL-encoded) for the next page; only a null' +
      ' next_cursor ends the list. country, source, sub_id and click_id are checked entry by entry, for at most' +
      ` ${s.reportScanMs} ms a call: a rare one may answer a short page whose next_cursor scans on from there.`,
    parameters: parameters(LEADS_QUERY),
    responses: {
      200: ok(
        'A page of your leads',
        {
          type: 'object',
          required: ['items', 'next_cursor'],
          properties: {
            items: { type: 'array', items: ref('PartnerLead') },
            next_cursor: { type: ['string', 'null'] },
          },
        },
        { items: [lead], next_cursor: '2026-11-22T10:00:00.000Z|le-1042' },
      ),
      ...errorResponses(REPORT_ERRORS, s),
    },
  };
}

export function reportsOperation(s: PartnerDocSettings): Json {
  return {
    operationId: 'dailyReport',
    tags: ['reports'],
    summary:
      "Your traffic per reporting day (your partner's time_zone) over a range of days (at most 366): totals and one row a day",
    description: `${SIGNED_GET} The figures of the portal's overview.`,
    parameters: parameters(REPORTS_QUERY),
    responses: {
      200: ok('Your traffic per day', ref('DayReport'), {
        from: '2026-11-22',
        to: '2026-11-22',
        totals: figures,
        by_day: [{ day: '2026-11-22', ...figures }],
      }),
      ...errorResponses(REPORT_ERRORS, s),
    },
  };
}

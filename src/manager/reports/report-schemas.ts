import type { JsonSchema } from '../../shared/schemas';
import { REJECTION_GROUPS } from '../../shared/reports/cell-counts';
import { DIMENSIONS } from './report-rows';
import { refusedUnless } from '../../shared/http/schema-parts';
import { MAX_DAYS, RANGE_PROBLEMS } from './report-reader';

// Route schemas of the reports (validation and the OpenAPI document), beside the manager's others.
const errorBody = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string' }, message: { type: 'string' } },
};
const count = { type: 'integer', minimum: 0 } as const;
// Rejections counted by the group of their reason: the reports' and the portal overview's.
export const REJECTED_BY_REASON = {
  type: 'object',
  required: [...REJECTION_GROUPS],
  properties: Object.fromEntries(REJECTION_GROUPS.map((g) => [g, count])),
} as const;
const share = (what: string) => ({ type: ['number', 'null'], description: `${what}; null when the denominator is 0` });
const median = (what: string) => ({
  type: ['integer', 'null'],
  description: `Median seconds from acceptance ${what}, as the upper bound of its histogram bucket (1-minute buckets up to an hour, then 1.5 h, 2 h, 3 h, 4 h, 6 h, 8 h, 12 h, 1 d, 2 d, 3 d, 7 d, 14 d, 30 d, 90 d); null when none`,
});

const figureProperties = {
  received: { ...count, description: 'accepted + rejected + duplicates + validation_errors' },
  accepted: count,
  duplicates: count,
  validation_errors: count,
  rejected: count,
  rejected_by_reason: REJECTED_BY_REASON,
  contacted: { ...count, description: "Accepted leads an agent's outcome reached (docs/managers.md, Reports)" },
  ftd: count,
  rtd: count,
  chargebacks: count,
  accepted_share: share('accepted / received'),
  contact_rate: share('contacted / accepted'),
  ftd_conversion: share('ftd / accepted'),
  chargeback_rate: share('chargebacks / ftd'),
  median_seconds_to_contact: median('to the first contact'),
  median_seconds_to_ftd: median('to the FTD'),
};
const figures: JsonSchema = { type: 'object', required: Object.keys(figureProperties), properties: figureProperties };
const row: JsonSchema = {
  type: 'object',
  required: Object.keys(figureProperties),
  properties: {
    partner_id: { type: 'string' },
    country: { type: ['string', 'null'] },
    source: { type: ['string', 'null'] },
    day: { type: 'string', format: 'date', description: "The partner's own day (its time_zone)" },
    ...figureProperties,
  },
};

const dimension = DIMENSIONS.join('|');
export const REPORT_QUERY: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { type: 'string', format: 'date', description: 'First day, inclusive (default: 6 days before to)' },
    to: {
      type: 'string',
      format: 'date',
      description: `Last day, inclusive (default: today, UTC); at most ${MAX_DAYS} days from from`,
    },
    group_by: {
      type: 'string',
      pattern: `^(${dimension})(,(${dimension}))*$`,
      description: 'Comma-separated dimensions; none: one row of everything',
    },
    affiliate_id: { type: 'string', minLength: 1, maxLength: 64 },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
    source: { type: 'string', minLength: 1, maxLength: 200 },
  },
};

const report: JsonSchema = {
  type: 'object',
  required: ['from', 'to', 'group_by', 'rows', 'totals'],
  properties: {
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    group_by: { type: 'array', items: { enum: [...DIMENSIONS] } },
    rows: { type: 'array', items: row },
    totals: figures,
  },
};

// The overview's per-day trend: the report of the last OVERVIEW_DAYS days grouped by day.
export const dayTrendSchema: JsonSchema = {
  type: 'object',
  required: ['from', 'to', 'rows'],
  description:
    "Per day (each partner's own day) over the last 14 days up to today (UTC), from the reports: survives restarts, counts every instance",
  properties: {
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    rows: { type: 'array', items: row },
  },
};

// A default day counts for the rule too (to: today, UTC; from: 6 days before to).
export const RANGE_REFUSAL = refusedUnless(
  `from is after to, or the days from from to to are more than ${MAX_DAYS}`,
  RANGE_PROBLEMS,
);

export const reportSchemas = {
  report: {
    tags: ['reports'],
    summary:
      "Counts, rates and medians per partner, country, source and day (the partner's day) over a range of days, with totals",
    querystring: REPORT_QUERY,
    response: { 200: report, 401: errorBody, 422: RANGE_REFUSAL },
  },
  reportCsv: {
    tags: ['reports'],
    summary:
      'The same report as CSV (a header line, one line per row, a total line); cells that a spreadsheet would run as a formula start with a quote',
    querystring: REPORT_QUERY,
    response: {
      200: { description: 'CSV, UTF-8, CRLF line ends', content: { 'text/csv': { schema: { type: 'string' } } } },
      401: errorBody,
      422: RANGE_REFUSAL,
    },
  },
};

import type { JsonSchema } from '../../../shared/schemas';
import { answers, int, nullable, object } from '../../../shared/http/schema-parts';
import { RANGE_REFUSAL, REJECTED_BY_REASON } from '../../../manager/reports/report-schemas';

// Route schemas of the portal's overview: the partner's traffic totals per day, source and country.
const OVERVIEW = ['portal: overview'];
const count = { type: 'integer', minimum: 0 } as const;
const rate = (what: string) => ({ type: ['number', 'null'], description: `${what}; null when the denominator is 0` });
const totalsProperties = {
  received: count,
  accepted: count,
  duplicates: count,
  validation_errors: count,
  rejected: count,
  rejected_by_reason: REJECTED_BY_REASON,
  contacted: count,
  ftd: count,
  ftd_rate: rate('ftd / accepted'),
  chargebacks: count,
  chargeback_rate: rate('chargebacks / ftd'),
};
const totals = object(totalsProperties);
const row = (key: string, keySchema: JsonSchema) => object({ [key]: keySchema, ...totalsProperties });

export const DAY_RANGE = {
  from: { type: 'string', format: 'date', description: 'First day (UTC), default 6 days before to' },
  to: { type: 'string', format: 'date', description: 'Last day (UTC), default today; at most 366 days in all' },
} as const;

const DAYS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    days: {
      type: 'integer',
      enum: [1, 7, 30],
      default: 7,
      description: 'Today (1), or the last 7 or 30 days up to today (UTC); from and to choose the days instead',
    },
    ...DAY_RANGE,
  },
} as const;

const overview = object({
  days: int,
  from: { type: 'string', format: 'date' },
  to: { type: 'string', format: 'date' },
  time_zone: { type: 'string', description: 'The zone whose today the 1, 7 and 30 days end at (yours)' },
  totals,
  by_day: { type: 'array', items: row('day', { type: 'string', format: 'date' }) },
  by_source: { type: 'array', items: row('source', nullable('string')) },
  by_country: { type: 'array', items: row('country', nullable('string')) },
});

// The partner's traffic per day over a range of whole UTC days (the partner API's reports).
export const dayReport = object({
  from: { type: 'string', format: 'date' },
  to: { type: 'string', format: 'date' },
  totals,
  by_day: { type: 'array', items: row('day', { type: 'string', format: 'date' }) },
});

const capUse = object({
  scope: { enum: ['partner_daily', 'partner_hourly', 'country_daily', 'country_hourly'] },
  country: nullable('string', { description: 'The country of a per-country cap; null for your own' }),
  limit: count,
  used: { ...count, description: 'Leads accepted under it this day or hour (in time_zone)' },
  left: { ...count, description: 'How many more it takes before a lead is rejected with cap_reached:<scope>' },
});

export const portalOverviewSchemas = {
  caps: {
    tags: OVERVIEW,
    summary: 'Your caps on accepted leads, each with what the current day or hour has used of it and what is left',
    response: answers(
      {
        200: object({
          time_zone: { type: 'string', description: 'Whose days and hours the caps count in' },
          caps: { type: 'array', items: capUse },
        }),
      },
      403,
    ),
  },
  overview: {
    tags: OVERVIEW,
    summary:
      'Your traffic today, over 7 or 30 days, or over the days you choose (from, to; at most 366): totals, per day, per source, per country',
    querystring: DAYS_QUERY,
    response: { ...answers({ 200: overview }, 403), 422: RANGE_REFUSAL },
  },
  overviewCsv: {
    tags: OVERVIEW,
    summary:
      'The same per day as CSV (a header, one line per day, a total line); a cell a spreadsheet would run as a formula starts with a quote',
    querystring: DAYS_QUERY,
    response: {
      ...answers({}, 403),
      422: RANGE_REFUSAL,
      200: { description: 'CSV, UTF-8, CRLF line ends', content: { 'text/csv': { schema: { type: 'string' } } } },
    },
  },
};

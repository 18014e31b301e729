import { REJECTION_GROUPS } from '../../../shared/reports/cell-counts';
import { DELIVERY_KINDS, DELIVERY_STATES, EVENT_NAMES } from '../../api-schemas';
import { CURSOR_QUERY } from '../../pagination';
import { REPLAY_RANGE_REFUSAL } from '../../replay-range';
import {
  answers,
  BODY_ERRORS,
  COMMAND_PENDING,
  dateTime,
  ID_ERRORS,
  idParams,
  int,
  nullable,
  object,
  str,
} from '../../schema-parts';
import type { JsonSchema } from '../../../shared/schemas';

// Route schemas of the portal's data routes: they validate requests and are the source of the
// portal's OpenAPI document. Every answer is the signed-in partner's own; no schema here has a
// field for personal data (beyond a masked phone), an agent or money.
const count = { type: 'integer', minimum: 0 } as const;
const rate = (what: string) => ({ type: ['number', 'null'], description: `${what}; null when the denominator is 0` });
const totalsProperties = {
  received: count,
  accepted: count,
  duplicates: count,
  validation_errors: count,
  rejected: count,
  rejected_by_reason: {
    type: 'object',
    required: [...REJECTION_GROUPS],
    properties: Object.fromEntries(REJECTION_GROUPS.map((g) => [g, count])),
  },
  contacted: count,
  ftd: count,
  ftd_rate: rate('ftd / accepted'),
  chargebacks: count,
  chargeback_rate: rate('chargebacks / ftd'),
};
const totals = object(totalsProperties);
const row = (key: string, keySchema: JsonSchema) => object({ [key]: keySchema, ...totalsProperties });

const DAYS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    days: {
      type: 'integer',
      enum: [1, 7, 30],
      default: 7,
      description: 'Today (1), or the last 7 or 30 days up to today (UTC)',
    },
  },
} as const;

const overview = object({
  days: int,
  from: { type: 'string', format: 'date' },
  to: { type: 'string', format: 'date' },
  totals,
  by_day: { type: 'array', items: row('day', { type: 'string', format: 'date' }) },
  by_source: { type: 'array', items: row('source', nullable('string')) },
  by_country: { type: 'array', items: row('country', nullable('string')) },
});

const statusPair = {
  status: { type: 'string', description: 'In your own codes (your status_mapping), as our callbacks say it' },
  our_status: str,
};
const leadRowProperties = {
  id: str,
  external_id: str,
  ...statusPair,
  is_depositor: { type: 'boolean' },
  reason: nullable('string'),
  country: nullable('string', { description: 'ISO 3166 alpha-2' }),
  source: nullable('string'),
  phone: nullable('string', { description: 'Masked (+44 79** ***456); null once the personal data is erased' }),
  test: { type: 'boolean', description: 'A sandbox lead' },
  created_at: dateTime,
  updated_at: dateTime,
};
const leadRow = object(leadRowProperties);
const timelineEvent = object({
  event_id: str,
  event: { enum: EVENT_NAMES },
  ...statusPair,
  at: dateTime,
  reason: nullable('string'),
  deliveries: {
    type: 'array',
    items: object({ id: str, kind: { enum: DELIVERY_KINDS }, state: { enum: DELIVERY_STATES } }),
  },
});
const lead = object({
  ...leadRowProperties,
  details: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'The routing fields you sent (country, language, source, funnel, sub_id, click_id, landing_url)',
  },
  personal_data: { enum: ['kept', 'erased'] },
  timeline: {
    type: 'array',
    items: timelineEvent,
    description: 'The events we told you of (a callback or a postback went, or will go, to you), oldest first',
  },
});

const attempt = object(
  {
    attempt: int,
    at: dateTime,
    http_status: nullable('integer'),
    duration_ms: int,
    error: nullable('string'),
    excerpt: nullable('string', { description: 'The first 200 characters of your answer' }),
    url: { type: 'string', description: "A postback's: the URL called, the token masked (***)" },
  },
  ['attempt', 'at', 'http_status', 'duration_ms', 'error', 'excerpt'],
);
const deliveryProperties = {
  id: str,
  kind: { enum: DELIVERY_KINDS },
  event: { enum: EVENT_NAMES },
  event_id: str,
  lead_id: str,
  state: { enum: DELIVERY_STATES },
  attempts_made: int,
  attempts_left: int,
  next_attempt_at: nullable('string', { format: 'date-time' }),
  last_http_status: nullable('integer'),
  last_error: nullable('string'),
  attempts: { type: 'array', items: attempt },
  retried_at: { type: 'array', items: dateTime, description: 'When it was retried by hand' },
  test: { type: 'boolean' },
  created_at: dateTime,
  updated_at: dateTime,
};
const delivery = object(
  {
    ...deliveryProperties,
    held_by: { type: 'string', description: 'The delivery of the same lead it waits for, or endpoint_paused' },
  },
  Object.keys(deliveryProperties),
);
const cursorPage = (item: JsonSchema) =>
  object({ items: { type: 'array', items: item }, next_cursor: nullable('string') });
const TIME_RANGE = {
  from: { type: 'string', format: 'date-time', description: 'Created at or after' },
  to: { type: 'string', format: 'date-time', description: 'Created before' },
} as const;

const replayJob = object({
  id: str,
  from: dateTime,
  to: dateTime,
  events: { type: 'array', items: { enum: EVENT_NAMES } },
  state: { enum: ['queued', 'running', 'done', 'failed'] },
  found: int,
  sent: int,
  created_at: dateTime,
  updated_at: dateTime,
  finished_at: nullable('string', { format: 'date-time' }),
  error: nullable('string'),
});
const testAttempt = object(
  {
    delivered: { type: 'boolean' },
    http_status: nullable('integer'),
    duration_ms: int,
    error: nullable('string'),
    response_body: nullable('string'),
    url: { type: 'string', description: 'A test postback: the URL called, the token masked (***)' },
  },
  ['delivered', 'http_status', 'duration_ms', 'error', 'response_body'],
);
const health = object({
  kind: { enum: DELIVERY_KINDS },
  state: { enum: ['active', 'paused'] },
  success_rate: nullable('number'),
  attempts_24h: int,
  consecutive_failures: int,
  failing_since: nullable('string', { format: 'date-time' }),
  last_success_at: nullable('string', { format: 'date-time' }),
  last_failure_at: nullable('string', { format: 'date-time' }),
  gone: { type: 'boolean' },
  held: int,
  paused_at: nullable('string', { format: 'date-time' }),
  resumed_at: nullable('string', { format: 'date-time' }),
});
const KIND_PARAMS = object({ kind: { enum: DELIVERY_KINDS } });

const OVERVIEW = ['portal: overview'];
const LEADS = ['portal: leads'];
const DELIVERIES = ['portal: callbacks and postbacks'];

export const portalDataSchemas = {
  overview: {
    tags: OVERVIEW,
    summary: 'Your traffic today or over 7 or 30 days: totals, per day, per source, per country',
    querystring: DAYS_QUERY,
    response: answers({ 200: overview }, 403, 422),
  },
  overviewCsv: {
    tags: OVERVIEW,
    summary:
      'The same per day as CSV (a header, one line per day, a total line); a cell a spreadsheet would run as a formula starts with a quote',
    querystring: DAYS_QUERY,
    response: {
      ...answers({}, 403, 422),
      200: { description: 'CSV, UTF-8, CRLF line ends', content: { 'text/csv': { schema: { type: 'string' } } } },
    },
  },
  listLeads: {
    tags: LEADS,
    summary:
      'Your leads, newest first; country and source are checked entry by entry (a rare one may answer a short page whose next_cursor scans on)',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        status: { type: 'string', minLength: 1, maxLength: 64, description: 'Our status code' },
        country: { type: 'string', pattern: '^[A-Z]{2}$' },
        source: { type: 'string', minLength: 1, maxLength: 255 },
        external_id: { type: 'string', minLength: 1, maxLength: 255 },
        ...TIME_RANGE,
        ...CURSOR_QUERY,
      },
    },
    response: answers({ 200: cursorPage(leadRow) }, 403, 422),
  },
  showLead: {
    tags: LEADS,
    summary: 'One of your leads and the events we told you of',
    params: idParams,
    response: answers({ 200: lead }, 403, ...ID_ERRORS),
  },
  listDeliveries: {
    tags: DELIVERIES,
    summary: 'Your callbacks and postbacks with their attempts, newest first',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        state: { enum: DELIVERY_STATES },
        event: { enum: EVENT_NAMES },
        kind: { enum: DELIVERY_KINDS },
        ...TIME_RANGE,
        ...CURSOR_QUERY,
      },
    },
    response: answers({ 200: cursorPage(delivery) }, 403, 422),
  },
  showDelivery: {
    tags: DELIVERIES,
    summary: 'One delivery with its attempts',
    params: idParams,
    response: answers({ 200: delivery }, 403, ...ID_ERRORS),
  },
  retryDelivery: {
    tags: DELIVERIES,
    summary: 'Give a dead delivery a fresh round of attempts, starting now (409 if it is not dead)',
    params: idParams,
    response: answers({ 200: delivery }, 403, ...ID_ERRORS, 409, COMMAND_PENDING),
  },
  retryDead: {
    tags: DELIVERIES,
    summary:
      'Give every dead delivery a fresh round of attempts: requeued, and pending (carried out when the dispatcher can)',
    response: answers({ 200: object({ requeued: int, pending: int }) }, 403),
  },
  replay: {
    tags: DELIVERIES,
    summary:
      'Send again every callback and postback created in [from, to), in order, as fresh rounds with the same event ids',
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['from', 'to'],
      description:
        'from before to, at most REPLAY_MAX_RANGE_S (7 days by default) apart: 422 invalid_request otherwise',
      properties: {
        from: dateTime,
        to: dateTime,
        events: {
          type: 'array',
          uniqueItems: true,
          items: { enum: EVENT_NAMES },
          description: 'Only these events (default: all)',
        },
      },
    },
    response: { ...answers({ 202: replayJob }, 403, ...BODY_ERRORS, COMMAND_PENDING), 422: REPLAY_RANGE_REFUSAL },
  },
  showReplay: {
    tags: DELIVERIES,
    summary: 'A replay and its progress',
    params: idParams,
    response: answers({ 200: replayJob }, 403, ...ID_ERRORS),
  },
  testCallback: {
    tags: DELIVERIES,
    summary: 'Send a signed synthetic lead.accepted (internal_id le-0) to your callback URL and report the attempt',
    response: answers({ 200: testAttempt }, 403, 409, COMMAND_PENDING),
  },
  testPostback: {
    tags: DELIVERIES,
    summary: 'Send your postback for a sample lead (internal_id le-0) once, and report the attempt and the URL called',
    body: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { event: { enum: EVENT_NAMES, default: 'lead.accepted' } },
    },
    response: answers({ 200: testAttempt }, 403, ...BODY_ERRORS, 409, COMMAND_PENDING),
  },
  endpoints: {
    tags: DELIVERIES,
    summary:
      'The health of your callback endpoint and your tracker: success rate, failures in a row, paused and held deliveries',
    response: answers({ 200: object({ items: { type: 'array', items: health } }) }, 403),
  },
  resumeEndpoint: {
    tags: DELIVERIES,
    summary: 'Resume a paused endpoint: its held deliveries go out in order (409 if it is not paused)',
    params: KIND_PARAMS,
    response: answers(
      { 202: object({ kind: { enum: DELIVERY_KINDS }, state: { enum: ['resuming'] }, requested_at: dateTime }) },
      403,
      409,
      422,
    ),
  },
};

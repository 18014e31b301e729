import { cursorPage, CREATED_RANGE } from '../../../manager/api-schemas/list-shapes';
import { DELIVERY_KINDS, DELIVERY_STATES, EVENT_NAMES } from '../../../manager/api-schemas/vocabulary';
import { CURSOR_QUERY } from '../../../manager/pagination';
import {
  answers,
  dateTime,
  ID_ERRORS,
  idParams,
  nullable,
  object,
  refusedUnless,
  str,
} from '../../../shared/http/schema-parts';
import { EXPORT_PROBLEMS } from './lead-export-range';

// Route schemas of the portal's leads: the partner's own, with a masked phone at most and the events it was told of.
const LEADS = ['portal: leads'];

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
export const leadRow = object(leadRowProperties);
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

// The filters of a partner's lead list (the portal's and the partner API's): our status, the
// routing fields sent at intake, the external id, when it was created.
export const LEAD_FILTERS = {
  status: { type: 'string', minLength: 1, maxLength: 64, description: 'Our status code' },
  country: { type: 'string', pattern: '^[A-Z]{2}$' },
  source: { type: 'string', minLength: 1, maxLength: 255 },
  sub_id: { type: 'string', minLength: 1, maxLength: 128 },
  click_id: { type: 'string', minLength: 1, maxLength: 256 },
  external_id: { type: 'string', minLength: 1, maxLength: 255 },
  ...CREATED_RANGE,
} as const;

export const portalLeadSchemas = {
  listLeads: {
    tags: LEADS,
    summary:
      'Your leads, newest first; country, source, sub_id and click_id are checked entry by entry (a rare one may answer a short page whose next_cursor scans on)',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ...LEAD_FILTERS,
        ...CURSOR_QUERY,
      },
    },
    response: answers({ 200: cursorPage(leadRow) }, 403, 422),
  },
  exportLeads: {
    tags: LEADS,
    summary:
      'Your leads as CSV, exactly as the list shows them with the same filters, newest first, streamed; from and to are required and at most 31 days apart. Audited',
    querystring: {
      type: 'object',
      additionalProperties: false,
      required: ['from', 'to'],
      properties: LEAD_FILTERS,
    },
    response: {
      ...answers({}, 403),
      200: {
        description:
          'CSV, UTF-8, CRLF line ends: a header, then one line per lead; a cell a spreadsheet would run as a formula starts with a quote',
        content: { 'text/csv': { schema: { type: 'string' } } },
      },
      422: refusedUnless('the range is longer than 31 days or runs backwards', EXPORT_PROBLEMS),
    },
  },
  statuses: {
    tags: LEADS,
    summary: 'The status codes a lead can have (ours), each with your own name for it (your status_mapping)',
    response: answers(
      {
        200: object({ statuses: { type: 'array', items: object({ code: str, yours: str }) } }),
      },
      403,
    ),
  },
  showLead: {
    tags: LEADS,
    summary: 'One of your leads and the events we told you of',
    params: idParams,
    response: answers({ 200: lead }, 403, ...ID_ERRORS),
  },
};

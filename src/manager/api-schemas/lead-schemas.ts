import { CURSOR_QUERY } from '../pagination';
import { answers, dateTime, ID_ERRORS, idParam, idParams, nullable, object, str } from '../../shared/http/schema-parts';
import { lead, LEAD_CORE, leadSummary } from './lead-view-schema';
import { cursorPage, TIME_RANGE } from './list-shapes';

// Route schemas of the leads: one lead, the lead list, an agent's leads and the erasure of personal data.
const AGENTS = ['agents'];
const LEADS = ['leads'];

const leadRow = object({
  ...LEAD_CORE,
  country_code: nullable('string'),
  source: nullable('string'),
  test: { type: 'boolean' },
  created_at: dateTime,
  updated_at: dateTime,
});

export const leadSchemas = {
  showLead: {
    tags: LEADS,
    summary:
      'One lead by its le-<n> id: status, history, the callbacks sent, fraud signals (risk) and sandbox mark (no personal data, no money)',
    params: idParams,
    response: answers({ 200: lead }, ...ID_ERRORS),
  },
  showPartnerLead: {
    tags: LEADS,
    summary: "One lead by its partner and the partner's external_id",
    params: object({ id: idParam, externalId: { type: 'string', minLength: 1, maxLength: 255 } }),
    response: answers({ 200: lead }, ...ID_ERRORS),
  },
  listAgentLeads: {
    tags: AGENTS,
    summary: "The agent's view: leads handed to this agent, newest first, with their risk",
    params: idParams,
    querystring: { type: 'object', additionalProperties: false, properties: CURSOR_QUERY },
    response: answers({ 200: cursorPage(leadSummary) }, ...ID_ERRORS),
  },
  listLeads: {
    tags: LEADS,
    summary:
      'The lead list, newest first (no personal data). Country and source are checked entry by entry, at most 2,000 a request: ' +
      'a rare one may answer a short page whose next_cursor scans on',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        affiliate_id: str,
        status: { type: 'string', minLength: 1, maxLength: 64 },
        country_code: { type: 'string', pattern: '^[A-Z]{2}$' },
        source: { type: 'string', minLength: 1, maxLength: 255 },
        is_depositor: { type: 'boolean' },
        ...TIME_RANGE,
        ...CURSOR_QUERY,
      },
    },
    response: answers({ 200: cursorPage(leadRow) }, 422),
  },
  erasePersonalData: {
    tags: LEADS,
    summary:
      "Erase a lead's personal data by destroying its own data key (crypto-shredding); status, history and events stay, the lead no longer matches dedup",
    params: idParams,
    response: answers(
      {
        202: object({
          id: str,
          personal_data: {
            const: 'erasing',
            description:
              "The key is destroyed; the lead's owner removes its claims, hashes and ciphertexts next (GET shows erased)",
          },
          key_destroyed_at: dateTime,
        }),
      },
      ...ID_ERRORS,
    ),
  },
} as const;

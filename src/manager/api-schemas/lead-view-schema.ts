import { LEAD_DETAIL_FIELDS } from '../../shared/mongo/documents';
import { dateTime, nullable, object, str } from '../../shared/http/schema-parts';
import { delivery } from './delivery-schemas';
import { EVENT_NAMES } from './vocabulary';

// One lead as the manager sees it: status, history, fraud signals and the callbacks its events made.
// Never a phone, email, name or IP (not even encrypted or hashed) and never money.
const risk = object({
  score: { type: 'integer', minimum: 0, maximum: 100 },
  reasons: {
    type: 'array',
    items: {
      enum: [
        'ip_country_mismatch_phone',
        'ip_country_mismatch_declared',
        'phone_country_mismatch_declared',
        'disposable_email',
        'ip_burst',
        'subnet_burst',
      ],
    },
  },
  ip_country: nullable('string', {
    description: "ISO 3166 alpha-2 country of the lead's IP, null when unknown (private address)",
  }),
});

const leadHistoryEntry = object(
  {
    event_id: nullable('string', {
      description:
        '<lead id>:<index>: the id of the event this change announced; null when the partner is not told (an idle lead handed to another agent)',
    }),
    event: { enum: [...EVENT_NAMES, null] },
    from: nullable('string'),
    to: str,
    at: dateTime,
    why: str,
    source: {
      type: 'string',
      description: 'intake, distribution, distribution:<command id>, agent-action:<id> or deposit:<id>',
    },
    reason: nullable('string'),
    agent_id: {
      type: 'string',
      description: 'The agent this change handed the lead to (assignments and idle reassignments)',
    },
  },
  ['event_id', 'event', 'from', 'to', 'at', 'why', 'source', 'reason'],
);
const leadDetails = {
  type: 'object',
  additionalProperties: false,
  description: 'Routing and reporting fields as the partner sent them (nothing personal)',
  properties: Object.fromEntries(LEAD_DETAIL_FIELDS.map((f) => [f, str])),
};
// The fields every view of a lead starts with, the lead list's rows too.
export const LEAD_CORE = {
  id: str,
  affiliate_id: str,
  external_id: str,
  status: str,
  is_depositor: { type: 'boolean' },
  agent_id: nullable('string'),
};
const leadSummaryProperties = {
  ...LEAD_CORE,
  client_id: nullable('string'),
  reason: nullable('string'),
  details: leadDetails,
  risk: {
    anyOf: [risk, { type: 'null' }],
    description: 'Fraud signals found at intake; null for leads stored before them',
  },
  test: { type: 'boolean', description: "A sandbox partner's lead (mode test)" },
  personal_data: { enum: ['kept', 'erased'] },
  personal_erased_at: nullable('string', { format: 'date-time' }),
  history: { type: 'array', items: leadHistoryEntry },
  created_at: dateTime,
  updated_at: dateTime,
};
export const leadSummary = object(leadSummaryProperties);
export const lead = object({
  ...leadSummaryProperties,
  deliveries: { type: 'array', items: delivery, description: 'The callbacks its events made, in event order' },
});

import { LEAD_DETAIL_FIELDS, type DeliveryState } from '../shared/mongo/documents';
import type { DeliveryKind } from '../shared/delivery-kind';
import { schemas, type JsonSchema } from '../shared/schemas';
import { AUDIT_ACTIONS } from '../shared/audit-actions';
import {
  answers,
  BODY_ERRORS,
  COMMAND_PENDING,
  dateTime,
  ID_ERRORS,
  idParam,
  idParams,
  int,
  nullable,
  object,
  str,
} from './schema-parts';
import { CURSOR_QUERY, PAGE_QUERY } from './pagination';
import { dayTrendSchema } from './reports/report-schemas';
import { REPLAY_RANGE_REFUSAL } from './replay-range';

// Route schemas of the manager API: they validate requests and are the source of the OpenAPI
// document. Settings come from schemas/partner-settings.json and schemas/agent.json, never restated.
export const SHARED_SCHEMA_IDS = ['partner-settings.json', 'agent.json'] as const;
type SharedSchemaId = (typeof SHARED_SCHEMA_IDS)[number];

const ref = (id: SharedSchemaId) => ({ $ref: `${id}#` });

function propertiesOf(id: string): Record<string, unknown> {
  return (schemas.get(id)?.properties ?? {}) as Record<string, unknown>;
}

export const EVENT_NAMES = (propertiesOf('callback-payload.json').event as { enum: string[] }).enum;
export const DELIVERY_STATES = ['queued', 'delivered', 'dead'] as const satisfies readonly DeliveryState[];
export const DELIVERY_KINDS = ['callback', 'postback'] as const satisfies readonly DeliveryKind[];
// Which of a partner's two endpoints a route is about (default: the callback endpoint).
const KIND_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { kind: { enum: DELIVERY_KINDS, default: 'callback', description: 'callback (default) or postback' } },
} as const;
export const ROTATABLE_SECRETS = ['hmac_secret', 'callback_secret'] as const;
// A rotation's grace: at most a week (partners roll a key out within days).
export const MAX_GRACE_SECONDS = 604800;

const page = (item: JsonSchema) => object({ items: { type: 'array', items: item }, next_offset: nullable('integer') });
const cursorPage = (item: JsonSchema) =>
  object({ items: { type: 'array', items: item }, next_cursor: nullable('string') });
// A time range of a list: the item's time at or after `from`, before `to`.
const TIME_RANGE = {
  from: { type: 'string', format: 'date-time', description: 'At or after this time' },
  to: { type: 'string', format: 'date-time', description: 'Before this time' },
} as const;

const secrets = {
  api_key: { type: 'string', description: 'Bearer key for the partner API; shown only in this answer' },
  hmac_secret: { type: 'string', description: 'Key the partner signs its requests with; shown only in this answer' },
  callback_secret: { type: 'string', description: 'Key our callbacks are signed with; shown only in this answer' },
};

const partnerProperties = {
  id: str,
  ...propertiesOf('partner-settings.json'),
  created_at: dateTime,
  updated_at: dateTime,
  key_rotated_at: nullable('string', { format: 'date-time' }),
  previous_secrets_until: nullable('string', {
    format: 'date-time',
    description: 'Until when the api_key and secrets a rotation with grace_seconds replaced still work',
  }),
  postback_token_set: { type: 'boolean', description: 'Whether a postback token (postbacks.token, write-only) is set' },
};
const partnerRequired = [
  'id',
  'name',
  'callback_url',
  'disabled',
  'created_at',
  'updated_at',
  'key_rotated_at',
  'previous_secrets_until',
  'postback_token_set',
];
const partner = object(partnerProperties, partnerRequired);
const partnerWithSecrets = object({ ...partnerProperties, ...secrets }, [...partnerRequired, ...Object.keys(secrets)]);

// time_zone, working_hours and supervisor_id are shown only when set (absent: UTC, always on shift, no team).
const agentProperties = {
  id: str,
  ...propertiesOf('agent.json'),
  last_assigned_at: nullable('string', { format: 'date-time' }),
  created_at: dateTime,
  updated_at: dateTime,
};
const agent = object(
  agentProperties,
  Object.keys(agentProperties).filter((k) => !['time_zone', 'working_hours', 'supervisor_id'].includes(k)),
);

const leadRow = object({
  id: str,
  affiliate_id: str,
  external_id: str,
  status: str,
  is_depositor: { type: 'boolean' },
  agent_id: nullable('string'),
  country_code: nullable('string'),
  source: nullable('string'),
  test: { type: 'boolean' },
  created_at: dateTime,
  updated_at: dateTime,
});

const attemptRequired = ['attempt', 'at', 'http_status', 'error', 'duration_ms'];
const attempt = object(
  {
    attempt: int,
    at: dateTime,
    http_status: nullable('integer'),
    error: nullable('string'),
    duration_ms: int,
    response_body: nullable('string', {
      description: "The receiver's answer, first CALLBACK_RESPONSE_BODY_LIMIT characters (absent in older records)",
    }),
    url: { type: 'string', description: "A postback's: the URL called, the token masked (***)" },
  },
  attemptRequired,
);

const deliveryProperties = {
  id: str,
  kind: {
    enum: DELIVERY_KINDS,
    description: 'callback: a signed JSON POST to callback_url; postback: a GET of the postback template',
  },
  event: { enum: EVENT_NAMES },
  event_id: str,
  affiliate_id: str,
  lead_id: str,
  state: { enum: DELIVERY_STATES },
  attempts_made: int,
  attempts_left: int,
  next_attempt_at: nullable('string', { format: 'date-time' }),
  last_http_status: nullable('integer'),
  last_response_body: nullable('string'),
  last_error: nullable('string'),
  attempts: { type: 'array', items: attempt },
  manual_retries: { type: 'array', items: object({ at: dateTime, by: str }) },
  test: { type: 'boolean', description: "For a sandbox partner's lead (mode test)" },
  created_at: dateTime,
  updated_at: dateTime,
};
// held_by: only while the delivery waits for an earlier delivery of its lead (callbacks go in event order),
// or for its partner's paused endpoint.
const delivery = object(
  {
    ...deliveryProperties,
    held_by: {
      type: 'string',
      description:
        "The delivery of the same lead this one waits for, or endpoint_paused while its partner's endpoint is paused",
    },
  },
  Object.keys(deliveryProperties),
);

// What a test callback or test postback answers: its one attempt.
const testAttempt = (postback: boolean) =>
  object({
    delivered: { type: 'boolean' },
    http_status: nullable('integer'),
    duration_ms: int,
    error: nullable('string'),
    response_body: nullable('string'),
    ...(postback && { url: { type: 'string', description: 'The URL called, the token masked (***)' } }),
  });

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

const auditEntry = object({
  id: str,
  at: dateTime,
  actor: {
    type: 'string',
    description:
      "acc-... (an account), sa-... (a service account), break-glass:<first 6 hex of the token's SHA-256>, anonymous (a failed sign-in) or system:<role>",
  },
  actor_name: { type: 'string', description: 'The display name of the account or service account (or the actor id)' },
  auth_method: nullable('string', {
    description: 'password, passkey, sso, token, break_glass or system (null: before accounts)',
  }),
  client_address: nullable('string'),
  action: str,
  affiliate_id: nullable('string'),
  target: nullable('string'),
  details: { type: 'object' },
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
// Never a phone, email, name or IP (not even encrypted or hashed) and never money.
const leadSummaryProperties = {
  id: str,
  affiliate_id: str,
  external_id: str,
  status: str,
  is_depositor: { type: 'boolean' },
  agent_id: nullable('string'),
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
const leadSummary = object(leadSummaryProperties);
const lead = object({
  ...leadSummaryProperties,
  deliveries: { type: 'array', items: delivery, description: 'The callbacks its events made, in event order' },
});

const minuteBucket = object({
  start: dateTime,
  end: dateTime,
  counts: { type: 'object', additionalProperties: int, description: 'Count by outcome' },
});
const chart = object({
  metric: { type: 'string', description: 'The Prometheus counter it is read from' },
  minutes: { type: 'array', items: minuteBucket },
});

// Creation needs a name on top of the shared settings schema.
const withName = (id: SharedSchemaId, ...more: JsonSchema[]) => ({
  type: 'object',
  allOf: [ref(id), ...more],
  required: ['name'],
});
const nonEmpty = (id: SharedSchemaId, ...more: JsonSchema[]) => ({
  type: 'object',
  allOf: [ref(id), ...more],
  minProperties: 1,
});

const endpointHealth = object({
  affiliate_id: str,
  kind: { enum: DELIVERY_KINDS, description: 'callback: the callback_url; postback: the tracker the postbacks go to' },
  state: {
    enum: ['active', 'paused'],
    description: 'paused: new callbacks are held (not sent, not dead) until a manager resumes the endpoint',
  },
  success_rate: nullable('number', {
    minimum: 0,
    maximum: 1,
    description: 'Delivered share of the attempts of the last 24 hours; null without attempts',
  }),
  attempts_24h: int,
  consecutive_failures: int,
  failing_since: nullable('string', { format: 'date-time' }),
  last_success_at: nullable('string', { format: 'date-time' }),
  last_failure_at: nullable('string', { format: 'date-time' }),
  gone: { type: 'boolean', description: 'The endpoint answered 410 Gone, with no success since' },
  held: { ...int, description: 'Callbacks held while the endpoint is paused' },
  paused_at: nullable('string', { format: 'date-time' }),
  resumed_at: nullable('string', { format: 'date-time' }),
});

const replayJob = object({
  id: str,
  affiliate_id: str,
  from: dateTime,
  to: dateTime,
  events: { type: 'array', items: { enum: EVENT_NAMES } },
  state: { enum: ['queued', 'running', 'done', 'failed'] },
  found: { ...int, description: 'Deliveries of the partner in the range' },
  sent: { ...int, description: 'Of those, handed to the dispatcher for a fresh round so far' },
  requested_by: str,
  created_at: dateTime,
  updated_at: dateTime,
  finished_at: nullable('string', { format: 'date-time' }),
  error: nullable('string'),
});

const AFFILIATES = ['affiliates'];
const DELIVERIES = ['deliveries'];
const AGENTS = ['agents'];
const LEADS = ['leads'];

// The partner bodies: status_mapping keys are the installation's statuses (STATUS_CATALOG_FILE) and
// callback_url's scheme depends on CALLBACK_ALLOW_HTTP, both known only at start-up, so the schema
// that validates and documents them is built then. A callback URL carries no credentials (no "@"
// before the path).
export function affiliateBodySchemas(statusCodes: readonly string[], allowHttp: boolean) {
  const knownStatuses = {
    type: 'object',
    properties: {
      status_mapping: { type: 'object', propertyNames: { enum: [...statusCodes] } },
      callback_url: { type: ['string', 'null'], pattern: `^${allowHttp ? 'https?' : 'https'}://[^/?#@]+([/?#].*)?$` },
    },
  };
  return {
    createAffiliate: {
      tags: AFFILIATES,
      summary: 'Create a partner; its three secrets are in this answer and never again',
      body: withName('partner-settings.json', knownStatuses),
      response: answers({ 201: partnerWithSecrets }, ...BODY_ERRORS),
    },
    updateAffiliate: {
      tags: AFFILIATES,
      summary: 'Change settings; each field given replaces the stored value whole',
      params: idParams,
      body: nonEmpty('partner-settings.json', knownStatuses),
      response: answers({ 200: partner }, ...ID_ERRORS, ...BODY_ERRORS),
    },
  };
}

export const routeSchemas = {
  listAffiliates: {
    tags: AFFILIATES,
    summary: 'List partners (settings only, never secrets)',
    querystring: { type: 'object', additionalProperties: false, properties: PAGE_QUERY },
    response: answers({ 200: page(partner) }, 422),
  },
  showAffiliate: {
    tags: AFFILIATES,
    summary: 'Show one partner (settings only, never secrets)',
    params: idParams,
    response: answers({ 200: partner }, ...ID_ERRORS),
  },
  rotateKey: {
    tags: AFFILIATES,
    summary:
      'Issue a new api_key (and, on request, new HMAC secrets); the old ones fail at once, or after grace_seconds',
    params: idParams,
    body: {
      type: ['object', 'null'],
      additionalProperties: false,
      description: 'Optional: without a body only the api_key is rotated, with no grace',
      properties: {
        secrets: {
          type: 'array',
          uniqueItems: true,
          items: { enum: ROTATABLE_SECRETS },
          description: 'HMAC secrets to rotate with the key',
        },
        grace_seconds: {
          type: 'integer',
          minimum: 0,
          maximum: MAX_GRACE_SECONDS,
          description:
            'How long the replaced api_key and secrets keep working (0, the default: not at all); with standard-webhooks, callbacks carry both signatures meanwhile',
        },
      },
    },
    response: answers(
      {
        200: object(
          { id: str, key_rotated_at: dateTime, grace_until: nullable('string', { format: 'date-time' }), ...secrets },
          ['id', 'key_rotated_at', 'grace_until', 'api_key'],
        ),
      },
      ...ID_ERRORS,
      ...BODY_ERRORS,
    ),
  },
  testCallback: {
    tags: AFFILIATES,
    summary: 'Send a signed synthetic lead.accepted (internal_id le-0) to the callback URL and report the attempt',
    params: idParams,
    response: answers({ 200: testAttempt(false) }, ...ID_ERRORS, 409, COMMAND_PENDING),
  },
  testPostback: {
    tags: AFFILIATES,
    summary:
      "Send the partner's postback for a sample lead (internal_id le-0) once, and report the attempt and the URL called (token masked)",
    params: idParams,
    body: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        event: { enum: EVENT_NAMES, default: 'lead.accepted', description: 'The event whose template is tried' },
      },
    },
    response: answers({ 200: testAttempt(true) }, ...ID_ERRORS, ...BODY_ERRORS, 409, COMMAND_PENDING),
  },
  endpointHealth: {
    tags: AFFILIATES,
    summary:
      "The partner's callback (or, with kind=postback, tracker) endpoint: success rate, failures in a row, last success, gone, paused and held deliveries",
    params: idParams,
    querystring: KIND_QUERY,
    response: answers({ 200: endpointHealth }, ...ID_ERRORS),
  },
  resumeEndpoint: {
    tags: AFFILIATES,
    summary:
      'Resume a paused endpoint (kind=postback: the tracker): its held deliveries go out in order, at ENDPOINT_RESUME_RATE_PER_S (409 if it is not paused)',
    params: idParams,
    querystring: KIND_QUERY,
    response: answers(
      { 202: object({ affiliate_id: str, state: { enum: ['resuming'] }, requested_at: dateTime }) },
      ...ID_ERRORS,
      409,
    ),
  },
  replay: {
    tags: AFFILIATES,
    summary:
      "Re-send the partner's callbacks created in [from, to) as fresh rounds with the same event ids, in order, at REPLAY_RATE_PER_S",
    params: idParams,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['from', 'to'],
      description:
        'from must be before to, at most REPLAY_MAX_RANGE_S (7 days by default) apart: 422 invalid_request otherwise',
      properties: {
        from: { ...dateTime, description: 'Start of the range (inclusive)' },
        to: { ...dateTime, description: 'End of the range (exclusive); at most REPLAY_MAX_RANGE_S after from' },
        events: {
          type: 'array',
          uniqueItems: true,
          items: { enum: EVENT_NAMES },
          description: 'Only these events (default: all)',
        },
      },
    },
    response: {
      ...answers({ 202: replayJob }, ...ID_ERRORS, ...BODY_ERRORS, COMMAND_PENDING),
      422: REPLAY_RANGE_REFUSAL,
    },
  },
  showReplay: {
    tags: AFFILIATES,
    summary: 'A replay job and its progress',
    params: idParams,
    response: answers({ 200: replayJob }, ...ID_ERRORS),
  },
  retryDeadDeliveries: {
    tags: DELIVERIES,
    summary:
      'Give every dead delivery of a partner a fresh round of attempts, starting now: requeued, and pending (commands the dispatcher had not confirmed in time; they are carried out when it can)',
    params: idParams,
    response: answers({ 200: object({ requeued: int, pending: int }) }, ...ID_ERRORS),
  },
  listDeliveries: {
    tags: DELIVERIES,
    summary: 'The callback delivery queue, newest first by when each record was created (from and to filter on it)',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        state: { enum: DELIVERY_STATES },
        affiliate_id: str,
        event: { enum: EVENT_NAMES },
        ...TIME_RANGE,
        ...CURSOR_QUERY,
      },
    },
    response: answers({ 200: cursorPage(delivery) }, 422),
  },
  showDelivery: {
    tags: DELIVERIES,
    summary: 'One delivery with its attempts',
    params: idParams,
    response: answers({ 200: delivery }, ...ID_ERRORS),
  },
  retryDelivery: {
    tags: DELIVERIES,
    summary: 'Give a dead delivery a fresh round of attempts, starting now (409 if it is not dead)',
    params: idParams,
    response: answers({ 200: delivery }, ...ID_ERRORS, 409, COMMAND_PENDING),
  },
  createAgent: {
    tags: AGENTS,
    summary: 'Create an agent; leads waiting for one are distributed to it',
    body: withName('agent.json'),
    response: answers({ 201: agent }, ...BODY_ERRORS),
  },
  listAgents: {
    tags: AGENTS,
    summary: 'List agents',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: { active: { type: 'boolean' }, ...PAGE_QUERY },
    },
    response: answers({ 200: page(agent) }, 422),
  },
  showAgent: {
    tags: AGENTS,
    summary: 'Show one agent',
    params: idParams,
    response: answers({ 200: agent }, ...ID_ERRORS),
  },
  updateAgent: {
    tags: AGENTS,
    summary: 'Change an agent (active flag, countries, languages, name, time zone, working hours)',
    params: idParams,
    body: nonEmpty('agent.json'),
    response: answers({ 200: agent }, ...ID_ERRORS, ...BODY_ERRORS),
  },
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
  overview: {
    tags: ['overview'],
    summary:
      'Intake requests and callbacks by outcome per minute over the last hour, every instance summed; and the last 14 days per day, from the reports',
    response: answers({
      200: object({ window_minutes: int, charts: object({ leads: chart, callbacks: chart }), days: dayTrendSchema }),
    }),
  },
  listAudit: {
    tags: ['audit'],
    summary: 'The audit log of manager actions, newest first',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: { affiliate_id: str, action: { enum: AUDIT_ACTIONS }, ...CURSOR_QUERY },
    },
    response: answers({ 200: cursorPage(auditEntry) }, 422),
  },
} as const;

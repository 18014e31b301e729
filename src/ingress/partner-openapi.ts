import { ERRORS, type ErrorCode } from '../shared/errors';
import { schemas } from '../shared/schemas';
import { VALIDATION_REASONS } from './validation-reasons';

export const PARTNER_OPENAPI_PATH = '/api/v1/inbound/openapi.json';

export interface PartnerDocSettings {
  serviceName: string;
  bodyLimitBytes: number;
  timestampToleranceS: number;
}

type Json = Record<string, unknown>;

// Which registry errors each partner operation can answer, grouped by HTTP status in the document.
const INTAKE_ERRORS: readonly ErrorCode[] = [
  'malformed_json',
  'invalid_idempotency_key',
  'missing_api_key',
  'invalid_api_key',
  'invalid_signature',
  'invalid_timestamp',
  'partner_disabled',
  'idempotency_key_in_use',
  'payload_too_large',
  'unsupported_media_type',
  'idempotency_key_reused',
  'rate_limit_exceeded',
  'too_many_auth_failures',
  'decision_pending',
  'service_unavailable',
];
const STATUS_ERRORS: readonly ErrorCode[] = [
  'missing_api_key',
  'invalid_api_key',
  'invalid_signature',
  'invalid_timestamp',
  'partner_disabled',
  'not_found',
  'rate_limit_exceeded',
  'too_many_auth_failures',
  'service_unavailable',
];
// Answers that come with Retry-After: <seconds>.
const RETRY_AFTER: ReadonlySet<ErrorCode> = new Set([
  'idempotency_key_in_use',
  'rate_limit_exceeded',
  'too_many_auth_failures',
  'decision_pending',
  'service_unavailable',
]);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// A schema of schemas/ as a component: no $id or $schema (OpenAPI 3.1 reads it as JSON Schema 2020-12,
// and every keyword these files use means the same there).
function component(id: string): Json {
  const { $id: _id, $schema: _schema, ...rest } = schemas.get(id) ?? {};
  return rest;
}

// The body as partners may send it: null and blank strings count as absent (lead forms send "" for an
// empty input), so every optional field also admits them; phone, the one required field, does not.
function inboundLeadOnTheWire(): Json {
  const lead = component('inbound-lead.json');
  const required = new Set(lead.required as string[]);
  const properties: Json = {};
  for (const [name, schema] of Object.entries(lead.properties as Record<string, Json>)) {
    const absent = [{ type: 'null' }, ...(isStringField(schema) ? [{ type: 'string', pattern: '^\\s*$' }] : [])];
    properties[name] = required.has(name) ? schema : { anyOf: [schema, ...absent] };
  }
  return {
    ...lead,
    properties,
    description:
      `${String(lead.description)} Strings are trimmed; null and blank values count as absent. With a field_mapping the` +
      " partner's own layout is sent instead and mapped to these fields before validation.",
  };
}

function isStringField(schema: Json): boolean {
  return (
    schema.type === 'string' ||
    (Array.isArray(schema.anyOf) && (schema.anyOf as Json[]).every((s) => s.type === 'string'))
  );
}

const RESULT_STATUSES = ['accepted', 'duplicate', 'validation_error', 'rejected'] as const;

const intakeResult: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'status', 'reason'],
  description: 'The intake result (spec 2.3)',
  properties: {
    id: {
      type: ['string', 'null'],
      pattern: '^le-[0-9]+$',
      description: "Our lead id; the existing lead's on a duplicate; null on validation_error and rejected",
    },
    status: { enum: RESULT_STATUSES },
    reason: {
      type: ['string', 'null'],
      description: 'Null on acceptance, else a machine-readable reason (see the 409 and 422 answers)',
    },
    duration_ms: {
      type: 'integer',
      minimum: 0,
      description: 'Only on a fresh acceptance: time spent on the whole intake',
    },
    replay: {
      const: true,
      description: 'Only when the stored answer to an earlier request with this Idempotency-Key is returned',
    },
  },
};

const errorBody: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['error', 'message'],
  properties: {
    error: { enum: Object.keys(ERRORS), description: 'A code of the error registry' },
    message: { type: 'string' },
    replay: {
      const: true,
      description: 'On a replayed answer (malformed_json is stored under its Idempotency-Key like any answer)',
    },
  },
};

export const leadStatusSchema: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'external_id', 'status', 'our_status', 'is_depositor', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', pattern: '^le-[0-9]+$' },
    external_id: { type: 'string' },
    status: { type: 'string', description: "Our status in the partner's codes (after its status_mapping)" },
    our_status: { type: 'string', description: 'Our canonical status code' },
    is_depositor: { type: 'boolean' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const retryAfter = (required: boolean) => ({
  'Retry-After': { required, description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 0 } },
});

// One example per registry error: its own message template with the placeholders filled in.
function errorExample(code: ErrorCode, s: PartnerDocSettings): Json {
  const params: Record<string, string | number> = {
    seconds: 12,
    tolerance: s.timestampToleranceS,
    limit: s.bodyLimitBytes,
  };
  return {
    summary: code,
    value: {
      error: code,
      message: ERRORS[code].message.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? '')),
    },
  };
}

const errorDescriptions = (codes: readonly ErrorCode[]) =>
  codes.map((c) => `\`${c}\`: ${ERRORS[c].message}`).join('; ');

// The error answers of one operation, one response per HTTP status; 409 and 422 of the intake are
// merged into the intake results by the caller.
function errorResponses(codes: readonly ErrorCode[], s: PartnerDocSettings): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  const out: Record<string, Json> = {};
  for (const [status, group] of byStatus) {
    const headers = group.some((c) => RETRY_AFTER.has(c))
      ? retryAfter(group.every((c) => RETRY_AFTER.has(c)))
      : undefined;
    out[String(status)] = {
      description: errorDescriptions(group),
      ...(headers ? { headers } : {}),
      content: {
        'application/json': {
          schema: ref('Error'),
          examples: Object.fromEntries(group.map((c) => [c, errorExample(c, s)])),
        },
      },
    };
  }
  return out;
}

const result = (summary: string, value: Json) => ({ summary, value });

const INTAKE_EXAMPLES = {
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

const REJECTED_REASONS = [
  'country_blocked:<cc>',
  'source_blocked',
  'ip_blocked',
  'risk_rejected',
  'cap_reached:<scope> (scope partner_daily, partner_hourly, country_daily or country_hourly: a cap on accepted leads in your time zone)',
];
const DUPLICATE_REASONS = ['matched_lead:<n>', 'external_id_taken:<n>'];

// 409 and 422 carry either an intake result or an error of the registry.
function mergedResponse(error: Json, description: string, examples: Json): Json {
  const content = (error.content as { 'application/json': { examples: Json } })['application/json'];
  return {
    ...error,
    ...(error.headers ? { headers: retryAfter(false) } : {}),
    description: `${description} Or an error: ${String(error.description)}`,
    content: {
      'application/json': {
        schema: { oneOf: [ref('IntakeResult'), ref('Error')] },
        examples: { ...examples, ...content.examples },
      },
    },
  };
}

function intakeOperation(s: PartnerDocSettings): Json {
  const errors = errorResponses(INTAKE_ERRORS, s);
  const validationReasons = Object.entries(VALIDATION_REASONS)
    .map(([r, what]) => `\`${r}\` (${what})`)
    .join('; ');
  return {
    operationId: 'submitLead',
    tags: ['intake'],
    summary: 'Submit a lead (spec 4.1)',
    description:
      'Checked in this order: API key, disabled partner and X-Timestamp; Content-Type and size' +
      ` (${s.bodyLimitBytes} bytes at most); X-Signature over the exact body bytes; rate limit; Idempotency-Key; JSON;` +
      ' field_mapping; validation; then the decision. A lead.accepted callback follows an acceptance.',
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        description:
          'Unique per logical request. The same key within the idempotency window returns the stored answer with' +
          ' replay: true; with another body it is refused (422 idempotency_key_reused). Missing: 422 missing_required:idempotency_key.' +
          ' Stands in for external_id when that is absent.',
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$',
        },
        example: 'order-7f3a-2026-11-22',
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: ref('InboundLead'),
          examples: {
            minimal: {
              summary: 'The recommended minimum',
              value: { external_id: 'aff-55120', phone: '+4915123456789', country: 'DE', source: 'google' },
            },
            full: {
              summary: 'Every canonical field',
              value: {
                external_id: 'aff-55121',
                first_name: 'Anna',
                last_name: 'Schmidt',
                email: 'anna@example.com',
                phone: '+4915123456780',
                country: 'Germany',
                country_code: 'DE',
                language: 'de',
                ip: '203.0.113.7',
                user_agent: 'Mozilla/5.0',
                source: 'google',
                funnel: 'crypto-1',
                sub_id: 's-17',
                click_id: 'c-9f2',
                landing_url: 'https://lp.example.com/de',
                metadata: { utm_campaign: 'nov' },
              },
            },
          },
        },
      },
    },
    responses: {
      200: {
        description:
          'Accepted (reason null, duration_ms); or the stored answer to the same Idempotency-Key (replay: true, no' +
          ' duration_ms; any earlier answer is replayed with its own HTTP status)',
        content: {
          'application/json': {
            schema: ref('IntakeResult'),
            examples: { accepted: INTAKE_EXAMPLES.accepted, replay: INTAKE_EXAMPLES.replay },
          },
        },
      },
      ...errors,
      409: mergedResponse(
        errors['409'] as Json,
        `Duplicate: id is the existing lead, reason ${DUPLICATE_REASONS.join(' or ')}.`,
        {
          matched_lead: INTAKE_EXAMPLES.matched_lead,
          external_id_taken: INTAKE_EXAMPLES.external_id_taken,
        },
      ),
      422: mergedResponse(
        errors['422'] as Json,
        `status validation_error with reason ${validationReasons}; or status rejected (a business rule or a cap; lead.rejected follows)` +
          ` with reason ${REJECTED_REASONS.join(', ')}. id is null.`,
        {
          missing_required: INTAKE_EXAMPLES.missing_required,
          invalid_format: INTAKE_EXAMPLES.invalid_format,
          country_blocked: INTAKE_EXAMPLES.country_blocked,
          ip_blocked: INTAKE_EXAMPLES.ip_blocked,
          risk_rejected: INTAKE_EXAMPLES.risk_rejected,
          cap_reached: INTAKE_EXAMPLES.cap_reached,
        },
      ),
    },
  };
}

function statusOperation(s: PartnerDocSettings): Json {
  return {
    operationId: 'leadStatus',
    tags: ['status'],
    summary: 'The status of one of your leads by its external id (spec 4.2)',
    description:
      "X-Signature signs the empty body. Another partner's lead is as unknown as one that does not exist (404).",
    parameters: [
      {
        name: 'externalId',
        in: 'path',
        required: true,
        description: 'external_id sent at intake (or the Idempotency-Key that stood in for it)',
        schema: { type: 'string', minLength: 1 },
        example: 'aff-55120',
      },
    ],
    responses: {
      200: {
        description: 'The lead; status in your codes, never money',
        content: {
          'application/json': {
            schema: ref('LeadStatus'),
            examples: {
              contacted: {
                summary: 'A contacted lead',
                value: {
                  id: 'le-1042',
                  external_id: 'aff-55120',
                  status: 'in_progress',
                  our_status: 'contacted',
                  is_depositor: false,
                  created_at: '2026-11-22T10:00:00.000Z',
                  updated_at: '2026-11-22T10:15:00.000Z',
                },
              },
            },
          },
        },
      },
      ...errorResponses(STATUS_ERRORS, s),
    },
  };
}

const EVENT_EXAMPLES: Record<string, Json> = {
  'lead.accepted': { status: 'new', our_status: 'new', is_depositor: false },
  'lead.rejected': { status: 'rejected', our_status: 'rejected', is_depositor: false, reason: 'country_blocked:KP' },
  'lead.status_changed': {
    status: 'in_progress',
    our_status: 'contacted',
    is_depositor: false,
    from_status: 'assigned',
  },
  'lead.ftd': { status: 'ftd', our_status: 'ftd', is_depositor: true },
  'lead.rtd': { status: 'rtd', our_status: 'rtd', is_depositor: true },
};

// The payload of one event: schemas/callback-payload.json with the event fixed; reason only on
// lead.rejected, from_status only on lead.status_changed (as buildCallbackPayload sends them).
function eventPayload(event: string): Json {
  const { title: _title, ...base } = component('callback-payload.json');
  const { reason, from_status: fromStatus, ...common } = base.properties as Json;
  const properties: Json = { ...common, event: { const: event } };
  if (event === 'lead.rejected') properties.reason = reason;
  if (event === 'lead.status_changed') properties.from_status = fromStatus;
  const required = [...(base.required as string[]), ...(event === 'lead.rejected' ? ['reason'] : [])];
  return { ...base, description: `${String(base.description)} Event ${event}.`, required, properties };
}

function webhooks(s: PartnerDocSettings): Json {
  const header = (name: string, description: string, schema: Json, required = true) => ({
    name,
    in: 'header',
    required,
    description,
    schema,
  });
  const spec = ' (signature_scheme spec, the default)';
  const standard = ' (signature_scheme standard-webhooks)';
  const out: Json = {};
  for (const event of Object.keys(EVENT_EXAMPLES)) {
    out[event] = {
      post: {
        summary: `${event}: POSTed to your callback_url`,
        description:
          'Verify X-Signature against the HMAC-SHA256 of the raw, unparsed body keyed with your callback_secret' +
          ' (constant-time; the sha256= prefix is optional in comparison) and refuse an X-Timestamp more than 5 minutes' +
          ' from your clock; with signature_scheme standard-webhooks verify webhook-signature with a Standard Webhooks' +
          ' library instead (during a rotation grace it carries two signatures). Answer 2xx within 10 seconds; 5xx, 408,' +
          ' 429 and timeouts are retried (+1 min, +5 min, +30 min, +2 h; 5 attempts), other answers get one more attempt.' +
          ' A 429 or 503 with Retry-After (seconds or an HTTP date) delays the next attempt that long (at most 2 h);' +
          ' 410 Gone flags your endpoint as gone. An endpoint failing every attempt for 24 h is paused until a manager' +
          ' resumes it (nothing is lost). The same event may arrive more than once (X-Event-Id is the same on every' +
          ' attempt and replay): drop repeats by it. Never carries money.',
        parameters: [
          header(
            'X-Event-Id',
            "<lead id>:<sequence>: the same on every attempt and replay of this event, unique per event (le-0:test-<hex> for a manager's test callback)",
            { type: 'string', pattern: '^le-[0-9]+:([0-9]+|test-[0-9a-f]+)$' },
          ),
          header(
            'X-Signature',
            `sha256=<hex HMAC-SHA256 of the raw body with your callback_secret>${spec}`,
            { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
            false,
          ),
          header('X-Timestamp', `Unix seconds of this attempt${spec}`, { type: 'string', pattern: '^[0-9]+$' }, false),
          header('webhook-id', `The same as X-Event-Id${standard}`, { type: 'string' }, false),
          header(
            'webhook-timestamp',
            `Unix seconds of this attempt${standard}`,
            { type: 'string', pattern: '^[0-9]+$' },
            false,
          ),
          header(
            'webhook-signature',
            `v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body" with your whsec_ secret>, space separated when there are two${standard}`,
            { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
            false,
          ),
          header('X-Event', 'The event name, as in the body', { const: event }),
          header('User-Agent', 'The service name', { const: `${s.serviceName}-Webhook/1.0` }),
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: eventPayload(event),
              example: {
                event,
                external_lead_id: 'aff-55120',
                internal_id: 'le-1042',
                timestamp: '2026-11-22T10:15:00.000Z',
                ...EVENT_EXAMPLES[event],
              },
            },
          },
        },
        responses: {
          '2XX': { description: 'Delivered; no more attempts' },
          '410': {
            description:
              'Your endpoint is gone: one more attempt, then the callback is dead; the endpoint is flagged gone',
          },
          '429': retryAfterAnswer('Too many requests: the next attempt waits as long as Retry-After asks'),
          '503': retryAfterAnswer('Unavailable: the next attempt waits as long as Retry-After asks'),
        },
      },
    };
  }
  return out;
}

function retryAfterAnswer(description: string): Json {
  return {
    description,
    headers: {
      'Retry-After': {
        description: 'Seconds, or an HTTP date; never earlier than our schedule, at most its last delay (2 h)',
        schema: { type: 'string' },
      },
    },
  };
}

// The OpenAPI 3.1 document of the partner API (spec 4.1, 4.2, 5, 6): both endpoints and the
// callbacks as webhooks, from the schemas that validate them and the error registry.
export function partnerOpenApiDocument(s: PartnerDocSettings): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: `${s.serviceName} partner API`,
      version: '1.0.0',
      description:
        'Lead intake and status lookup for partners, and the signed callbacks partners receive. Every request carries' +
        ' Authorization: Bearer <api_key>, X-Signature: sha256=<hex HMAC-SHA256 of the raw body with your hmac_secret>' +
        ` (a GET signs the empty body) and X-Timestamp: <Unix seconds, within ${s.timestampToleranceS} s of our clock>.` +
        ' 401: we cannot tell who you are (missing or unknown key); 403: we know you but refuse the request (bad signature,' +
        ' stale timestamp, disabled partner). Errors are {error, message}.',
    },
    tags: [{ name: 'intake' }, { name: 'status' }],
    paths: {
      '/api/v1/inbound/leads': { post: intakeOperation(s) },
      '/api/v1/inbound/leads/{externalId}/status': { get: statusOperation(s) },
    },
    webhooks: webhooks(s),
    components: {
      schemas: {
        InboundLead: inboundLeadOnTheWire(),
        IntakeResult: intakeResult,
        LeadStatus: leadStatusSchema,
        Error: errorBody,
      },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <api_key>' },
        signature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Signature',
          description:
            'sha256=<hex> where <hex> is the HMAC-SHA256 of the exact body bytes sent (empty for a GET), keyed with your hmac_secret; the sha256= prefix is optional',
        },
        timestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Timestamp',
          description: `Unix time in seconds, within ${s.timestampToleranceS} seconds of our clock`,
        },
      },
    },
    security: [{ apiKey: [], signature: [], timestamp: [] }],
  };
}

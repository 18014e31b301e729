import { PAGE_QUERY } from '../pagination';
import { answers, BODY_ERRORS, COMMAND_PENDING, ID_ERRORS, idParams } from '../../shared/http/schema-parts';
import { dateTime, int, nullable, object, str } from '../../shared/http/schema-parts';
import { page } from './list-shapes';
import { nonEmpty, propertiesOf, withName } from './shared-settings';
import { EVENT_NAMES, MAX_GRACE_SECONDS, ROTATABLE_SECRETS } from './vocabulary';

// Route schemas of the partners themselves: settings, keys and the test callback and postback.
const AFFILIATES = ['affiliates'];

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

export const partnerSchemas = {
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
} as const;

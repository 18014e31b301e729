import { EVENT_NAMES, MAX_GRACE_SECONDS } from '../../../manager/api-schemas';
import { DOCUMENTED_PUBLIC_URL } from '../../../manager/documented-urls';
import {
  answers,
  BODY_ERRORS,
  dateTime,
  int,
  nullable,
  object,
  str,
  stricterInDocument,
} from '../../../shared/http/schema-parts';

// Route schemas of the partner's Integration page (the portal's OpenAPI document is made of them).
const TAGS = ['portal: integration'];
const quota = object({ per_minute: int, used: { ...int, description: 'Requests counted in the current window' } });
const snippet = object({ language: str, file: str, code: str });

const integration = object({
  affiliate_id: str,
  name: str,
  mode: {
    enum: ['live', 'test'],
    description: 'test: a sandbox partner, whose leads are marked test (a test lead may be sent from the portal)',
  },
  base_url: {
    type: 'string',
    description: 'Where the partner API is (POST {base_url}/leads, GET {base_url}/leads/{externalId}/status)',
  },
  api_document_url: { type: 'string', description: "The partner API's OpenAPI document" },
  rate_limits: object({ window_seconds: int, intake: quota, status: quota }),
  signing: object({
    requests: str,
    timestamp_tolerance_seconds: int,
    callbacks: str,
    callback_scheme: { enum: ['spec', 'standard-webhooks'] },
  }),
  callback_url: nullable('string'),
  callback_events: { type: 'array', items: { enum: EVENT_NAMES }, description: 'Empty: every event' },
  postbacks: object({ events: { type: 'array', items: { enum: EVENT_NAMES } }, token_set: { type: 'boolean' } }),
  key_rotated_at: nullable('string', { format: 'date-time' }),
  previous_secrets_until: nullable('string', {
    format: 'date-time',
    description: 'Until when the secrets a rotation replaced still work',
  }),
  verification_snippets: {
    type: 'array',
    items: snippet,
    description: 'Code that checks our callbacks, tested against real ones',
  },
});

export const PORTAL_SECRETS = ['api_key', 'hmac_secret', 'callback_secret'] as const;
const secret = (what: string) => ({ type: 'string', description: `${what}; shown only in this answer` });

export const integrationSchemas = {
  show: {
    tags: TAGS,
    summary:
      'Base URL, rate limits and their use, signing, callback URL and events, postbacks, the API document and verification code',
    response: answers({ 200: integration }, 403),
  },
  rotate: {
    tags: TAGS,
    summary:
      'Issue new secrets; the replaced ones stop at once, or after grace_seconds. The new ones are in this answer and never again',
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['which'],
      properties: {
        which: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: PORTAL_SECRETS } },
        grace_seconds: {
          type: 'integer',
          minimum: 0,
          maximum: MAX_GRACE_SECONDS,
          default: 0,
          description: 'How long the replaced secrets keep working',
        },
      },
    },
    response: answers(
      {
        200: object(
          {
            key_rotated_at: dateTime,
            grace_until: nullable('string', { format: 'date-time' }),
            api_key: secret('Bearer key for the partner API'),
            hmac_secret: secret('Key you sign requests with'),
            callback_secret: secret('Key our callbacks are signed with'),
          },
          ['key_rotated_at', 'grace_until'],
        ),
      },
      403,
      ...BODY_ERRORS,
    ),
  },
  // The document names a host name that is not localhost: IP addresses, which the server takes when
  // they are public, are left out of it.
  update: stricterInDocument(
    {
      tags: TAGS,
      summary:
        'Change the callback URL (https, a public address; null: no callbacks) or the events called back (empty: all); audited, effective at once',
      body: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          callback_url: {
            type: ['string', 'null'],
            format: 'uri',
            maxLength: 2048,
            pattern: '^https://[^/?#@]+([/?#].*)?$',
          },
          callback_events: { type: 'array', uniqueItems: true, items: { enum: EVENT_NAMES } },
        },
      },
      response: answers(
        {
          200: object({
            callback_url: nullable('string'),
            callback_events: { type: 'array', items: { enum: EVENT_NAMES } },
            updated_at: dateTime,
          }),
        },
        403,
        ...BODY_ERRORS,
      ),
    },
    { callback_url: DOCUMENTED_PUBLIC_URL },
  ),
};

import { DELIVERY_KINDS, EVENT_NAMES } from '../../../manager/api-schemas/vocabulary';
import { REPLAY_RANGE_REFUSAL } from '../../../manager/replay-range';
import { answers, BODY_ERRORS, COMMAND_PENDING, ID_ERRORS, idParams } from '../../../shared/http/schema-parts';
import { dateTime, int, nullable, object, str } from '../../../shared/http/schema-parts';
import { DELIVERIES } from './portal-delivery-schemas';

// Route schemas of the partner's endpoints: replays, test callbacks and postbacks, health and resume.
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

export const portalEndpointSchemas = {
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

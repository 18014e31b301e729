import { REPLAY_RANGE_REFUSAL } from '../replay-range';
import { answers, BODY_ERRORS, COMMAND_PENDING, ID_ERRORS, idParams } from '../../shared/http/schema-parts';
import { dateTime, int, nullable, object, str } from '../../shared/http/schema-parts';
import { DELIVERY_KINDS, EVENT_NAMES } from './vocabulary';

// Route schemas of a partner's endpoints: their health, a resume after a pause and a replay.
const AFFILIATES = ['affiliates'];

// Which of a partner's two endpoints a route is about (default: the callback endpoint).
const KIND_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { kind: { enum: DELIVERY_KINDS, default: 'callback', description: 'callback (default) or postback' } },
} as const;

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

export const endpointSchemas = {
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
      'Resume a paused endpoint (kind=postback: the tracker): its held deliveries go out in order, as fast as the endpoint takes them (409 if it is not paused)',
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
} as const;

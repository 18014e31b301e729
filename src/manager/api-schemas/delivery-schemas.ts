import { CURSOR_QUERY } from '../pagination';
import {
  answers,
  COMMAND_PENDING,
  dateTime,
  ID_ERRORS,
  idParams,
  int,
  nullable,
  object,
  str,
} from '../../shared/http/schema-parts';
import { cursorPage, TIME_RANGE } from './list-shapes';
import { DELIVERY_KINDS, DELIVERY_STATES, EVENT_NAMES } from './vocabulary';

// Route schemas of the delivery queue: the callbacks and postbacks, their attempts and retries.
const DELIVERIES = ['deliveries'];

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

// Where a delivery stands, as the manager and the portal both show it.
export const DELIVERY_PROGRESS = {
  lead_id: str,
  state: { enum: DELIVERY_STATES },
  attempts_made: int,
  attempts_left: int,
  next_attempt_at: nullable('string', { format: 'date-time' }),
  last_http_status: nullable('integer'),
};
const deliveryProperties = {
  id: str,
  kind: {
    enum: DELIVERY_KINDS,
    description: 'callback: a signed JSON POST to callback_url; postback: a GET of the postback template',
  },
  event: { enum: EVENT_NAMES },
  event_id: str,
  affiliate_id: str,
  ...DELIVERY_PROGRESS,
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
export const delivery = object(
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

export const deliverySchemas = {
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
} as const;

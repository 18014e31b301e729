import { DELIVERY_PROGRESS } from '../../../manager/api-schemas/delivery-schemas';
import { cursorPage, CREATED_RANGE } from '../../../manager/api-schemas/list-shapes';
import { DELIVERY_KINDS, DELIVERY_STATES, EVENT_NAMES } from '../../../manager/api-schemas/vocabulary';
import { CURSOR_QUERY } from '../../../manager/pagination';
import { answers, COMMAND_PENDING, ID_ERRORS, idParams } from '../../../shared/http/schema-parts';
import { dateTime, int, nullable, object, str } from '../../../shared/http/schema-parts';

// Route schemas of the partner's callbacks and postbacks: list, show and retry.
export const DELIVERIES = ['portal: callbacks and postbacks'];

const attempt = object(
  {
    attempt: int,
    at: dateTime,
    http_status: nullable('integer'),
    duration_ms: int,
    error: nullable('string'),
    excerpt: nullable('string', { description: 'The first 200 characters of your answer' }),
    url: { type: 'string', description: "A postback's: the URL called, the token masked (***)" },
  },
  ['attempt', 'at', 'http_status', 'duration_ms', 'error', 'excerpt'],
);
const deliveryProperties = {
  id: str,
  kind: { enum: DELIVERY_KINDS },
  event: { enum: EVENT_NAMES },
  event_id: str,
  ...DELIVERY_PROGRESS,
  last_error: nullable('string'),
  attempts: { type: 'array', items: attempt },
  retried_at: { type: 'array', items: dateTime, description: 'When it was retried by hand' },
  test: { type: 'boolean' },
  created_at: dateTime,
  updated_at: dateTime,
};
const delivery = object(
  {
    ...deliveryProperties,
    held_by: { type: 'string', description: 'The delivery of the same lead it waits for, or endpoint_paused' },
  },
  Object.keys(deliveryProperties),
);
export const portalDeliverySchemas = {
  listDeliveries: {
    tags: DELIVERIES,
    summary: 'Your callbacks and postbacks with their attempts, newest first',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: {
        state: { enum: DELIVERY_STATES },
        event: { enum: EVENT_NAMES },
        kind: { enum: DELIVERY_KINDS },
        ...CREATED_RANGE,
        ...CURSOR_QUERY,
      },
    },
    response: answers({ 200: cursorPage(delivery) }, 403, 422),
  },
  showDelivery: {
    tags: DELIVERIES,
    summary: 'One delivery with its attempts',
    params: idParams,
    response: answers({ 200: delivery }, 403, ...ID_ERRORS),
  },
  retryDelivery: {
    tags: DELIVERIES,
    summary: 'Give a dead delivery a fresh round of attempts, starting now (409 if it is not dead)',
    params: idParams,
    response: answers({ 200: delivery }, 403, ...ID_ERRORS, 409, COMMAND_PENDING),
  },
  retryDead: {
    tags: DELIVERIES,
    summary:
      'Give every dead delivery a fresh round of attempts: requeued, and pending (carried out when the dispatcher can)',
    response: answers({ 200: object({ requeued: int, pending: int }) }, 403),
  },
};

import type { JsonSchema } from '../../shared/schemas';
import { nullable, object } from '../../shared/http/schema-parts';

// The answers of the lists: a page by offset (small lists) or by cursor (big ones).
export const page = (item: JsonSchema) =>
  object({ items: { type: 'array', items: item }, next_offset: nullable('integer') });
export const cursorPage = (item: JsonSchema) =>
  object({ items: { type: 'array', items: item }, next_cursor: nullable('string') });
// A time range of a list: the item's time at or after `from`, before `to`.
export const TIME_RANGE = {
  from: { type: 'string', format: 'date-time', description: 'At or after this time' },
  to: { type: 'string', format: 'date-time', description: 'Before this time' },
} as const;
// The portal's lists filter on when an item was created.
export const CREATED_RANGE = {
  from: { type: 'string', format: 'date-time', description: 'Created at or after' },
  to: { type: 'string', format: 'date-time', description: 'Created before' },
} as const;

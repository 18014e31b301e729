import type { JsonSchema } from '../shared/schemas';

// The pieces the manager's route schemas are built of.
export const str = { type: 'string' } as const;
export const int = { type: 'integer' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const nullable = (type: 'string' | 'integer' | 'number', extra: JsonSchema = {}) => ({ type: [type, 'null'], ...extra });
export const object = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)): JsonSchema =>
  ({ type: 'object', required, properties });

export const errorBody = object({ error: str, message: str });
export const ID_MAX = 64;
export const idParam = { type: 'string', minLength: 1, maxLength: ID_MAX } as const;
export const idParams = object({ id: idParam });
// A route with an id in its path: 404 for an unknown id, 422 for one no id can be (over ID_MAX characters).
export const ID_ERRORS = [404, 422];

// The {error, message} answers a route can give besides its success.
export function answers(success: Record<number, JsonSchema>, ...errors: number[]): Record<number, JsonSchema> {
  const out: Record<number, JsonSchema> = { ...success, 401: errorBody };
  for (const status of errors) out[status] = errorBody;
  return out;
}

// What a route that reads a JSON body may also answer: malformed_json, payload_too_large,
// unsupported_media_type, invalid_request.
export const BODY_ERRORS = [400, 413, 415, 422];
// command_pending: the dispatcher did not confirm a command in time (it still carries it out).
export const COMMAND_PENDING = 503;


import { ApiError } from '../errors';
import type { JsonSchema } from '../schemas';

// The pieces the manager's route schemas are built of.
export const str = { type: 'string' } as const;
export const int = { type: 'integer' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const nullable = (type: 'string' | 'integer' | 'number', extra: JsonSchema = {}) => ({
  type: [type, 'null'],
  ...extra,
});
export const object = (
  properties: Record<string, unknown>,
  required: string[] = Object.keys(properties),
): JsonSchema => ({ type: 'object', required, properties });

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

// A 422 whose reasons JSON Schema cannot state (a rule between two fields): described, with the
// answer to each reason as an example. `reasons`: example name to the detail the server gives.
export function refusedUnless(rule: string, reasons: Record<string, string>): JsonSchema {
  const examples = Object.entries(reasons).map(([name, detail]) => [
    name,
    { summary: detail, value: new ApiError('invalid_request', { detail }).body() },
  ]);
  return {
    description: `invalid_request: the body or query fails its schema, or ${rule}`,
    content: { 'application/json': { schema: errorBody, examples: Object.fromEntries(examples) } },
  };
}

// A route schema whose document shows some body properties stricter than the route validates (what
// the server refuses in code, with 422, where validating it would change an answer); the documents'
// transform shows documentedBody as the body (asDocumented).
export function stricterInDocument<T extends { body: JsonSchema }>(
  schema: T,
  properties: Record<string, JsonSchema>,
): T & { documentedBody: JsonSchema } {
  const body = schema.body as { properties?: Record<string, unknown> };
  return { ...schema, documentedBody: { ...body, properties: { ...body.properties, ...properties } } };
}

export function asDocumented<T extends object>(schema: T): T {
  const { documentedBody, ...rest } = schema as T & { documentedBody?: JsonSchema };
  return documentedBody ? ({ ...rest, body: documentedBody } as T) : schema;
}

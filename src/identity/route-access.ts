import type { RouteOptions } from 'fastify';

const ERROR_BODY = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string' }, message: { type: 'string' } },
};

// What a route's OpenAPI operation says of its access: x-access, and x-roles with the 401 and 403
// answers unless it is public (no credential: security []), and the 429 of an address past the limit of
// unknown bearer tokens.
export function documentAccess(route: RouteOptions, access: string, roles: readonly string[] | string): void {
  if (access === 'public') {
    route.schema = { ...route.schema, security: [], 'x-access': access } as typeof route.schema;
    return;
  }
  const response = (route.schema?.response ?? {}) as Record<string, unknown>;
  route.schema = {
    ...route.schema,
    'x-access': access,
    'x-roles': roles,
    response: { ...response, 401: response[401] ?? ERROR_BODY, 403: ERROR_BODY, 429: response[429] ?? ERROR_BODY },
  } as typeof route.schema;
}

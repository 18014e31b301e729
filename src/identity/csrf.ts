import Tokens from '@fastify/csrf';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../shared/errors';

export const CSRF_HEADER = 'x-csrf-token';
export const csrfTokens = new Tokens({});
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

// A request that changes something with a session cookie carries the session's CSRF token.
export function checkCsrf(req: FastifyRequest): void {
  const given = req.headers[CSRF_HEADER];
  if (typeof given !== 'string' || !req.session._csrf || !csrfTokens.verify(req.session._csrf, given))
    throw new ApiError('csrf_invalid');
}

// The token the console (or the portal) sends in X-CSRF-Token with every request that changes something.
export function csrfToken(req: FastifyRequest): string {
  const s = req.session;
  s._csrf ??= csrfTokens.secretSync();
  return csrfTokens.create(s._csrf);
}

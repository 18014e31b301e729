import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sha256Hex } from '../shared/crypto/lookup-hash';
import { constantTimeIncludes } from '../shared/crypto/tokens';
import { ApiError } from '../shared/errors';
import { bearerToken } from '../shared/http/bearer-token';

declare module 'fastify' {
  interface FastifyRequest {
    // Who made a manager request, as written to the audit log: never the token itself.
    managerActor: string;
  }
}

export function actorFor(token: string): string {
  return `token:${sha256Hex(token).slice(0, 6)}`;
}

// Every route of `app` then needs one of the MANAGER_TOKENS as a Bearer token, checked before the
// body is read. Digests are compared rather than tokens, so the time taken does not depend on the
// length of a guess.
export function requireManagerToken(app: FastifyInstance, tokens: readonly string[]): void {
  const digests = tokens.map((t) => sha256Hex(t));
  app.decorateRequest('managerActor', '');
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const token = bearerToken(req.headers.authorization);
    if (!token || !constantTimeIncludes(digests, sha256Hex(token))) throw new ApiError('manager_unauthorized');
    req.managerActor = actorFor(token);
  });
}

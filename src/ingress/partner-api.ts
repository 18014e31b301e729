import type { KeyObject } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../shared/errors';
import { toApiError } from '../shared/http/fastify-errors';
import { requestBodyHash } from '../shared/crypto/lookup-hash';
import { identifyPartner, refused, signedCorrectly, tooManyAuthFailures } from './auth';
import { isValidIdempotencyKey } from './idempotency';
import { answer, authenticated, endpointOf, type PartnerApiDeps } from './partner-context';

const EMPTY = Buffer.alloc(0);

export const PARTNER_API_PREFIX = '/api/v1/inbound';
// The reporting calls (GET /api/v1/leads, /api/v1/reports): the same context, another prefix.
export const PARTNER_REPORTS_PREFIX = '/api/v1';

// The partner API context (spec 4.1, 4.2, 5.1, 8), around the routes it is given (intake and
// status; the reporting calls): Authorization and X-Timestamp on arrival, before the body is read;
// the body kept as raw bytes; then X-Signature over those bytes, and the admission (failed authentications of the address, the
// partner's rate limit and the Idempotency-Key's claim, one Redis round trip); every error as
// {error, message}. A badly signed request never spends quota or claims a key, nor has its query
// string checked.
export function partnerApi(deps: PartnerApiDeps, routes: readonly FastifyPluginAsync[]) {
  const { partners, intake, logger } = deps;
  const authDeps = { partners, authFailures: deps.authFailures };
  return async function register(app: FastifyInstance): Promise<void> {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: intake.bodyLimitBytes },
      (_req, body, done) => done(null, body),
    );
    app.decorateRequest('inbound', null);

    app.addHook('onRequest', async (req) => {
      const receivedAtMs = Date.now();
      req.inbound = { receivedAtMs, partner: null, authFailuresChecked: false, claim: null, outcome: 'error' };
      Object.assign(req.inbound, await identifyPartner(req, authDeps, intake.timestampToleranceS, receivedAtMs));
    });

    app.addHook('preValidation', async (req) => {
      const partner = authenticated(req);
      const raw = Buffer.isBuffer(req.body) ? req.body : EMPTY;
      if (!signedCorrectly(partner, partners, raw, req.headers)) {
        await refused(req.inbound?.authFailuresChecked ?? false, authDeps, req.ip, new ApiError('invalid_signature'));
      }
      const claim = claimable(req, raw, deps.hashKey);
      const admission = await deps.admissions.admit(req.ip, partner, endpointOf(req), claim ?? undefined);
      if (admission.kind === 'auth_failures') throw tooManyAuthFailures(admission.retryAfterS);
      if (admission.kind === 'rate_limited') {
        throw new ApiError(
          'rate_limit_exceeded',
          { seconds: admission.retryAfterS },
          { 'retry-after': String(admission.retryAfterS) },
        );
      }
      if (claim && admission.claim && req.inbound) req.inbound.claim = { ...claim, claim: admission.claim };
    });

    app.setErrorHandler((err, req, reply) => {
      const api = toApiError(err, intake.bodyLimitBytes);
      if (api.code === 'internal_error') logger.error({ err, endpoint: endpointOf(req) }, 'partner API request failed');
      return answer(req, reply, api.status, api.body(), api.headers);
    });

    // One structured line per request: who, which endpoint, what outcome. Never a header or body.
    app.addHook('onResponse', async (req, reply) => {
      const ctx = req.inbound;
      if (!ctx) return;
      const ms = Date.now() - ctx.receivedAtMs;
      const partnerId = ctx.partner?._id ?? null;
      deps.metrics.observe(endpointOf(req), ctx.outcome, ctx.partner, ms / 1000);
      logger.info(
        { endpoint: endpointOf(req), partner_id: partnerId, outcome: ctx.outcome, http_status: reply.statusCode, ms },
        'partner request',
      );
    });

    for (const plugin of routes) await app.register(plugin);
  };
}

// What an intake request's admission claims: its Idempotency-Key (when it is one valid key) and
// the hash of its body. Anything else is answered by the intake flow without a claim.
function claimable(req: FastifyRequest, raw: Buffer, hashKey: KeyObject): { key: string; bodyHash: string } | null {
  const key = req.headers['idempotency-key'];
  if (
    endpointOf(req) !== 'intake' ||
    !Buffer.isBuffer(req.body) ||
    typeof key !== 'string' ||
    !isValidIdempotencyKey(key)
  )
    return null;
  return { key, bodyHash: requestBodyHash(hashKey, raw) };
}

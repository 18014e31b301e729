import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors';
import { toApiError } from '../shared/http/fastify-errors';
import { checkSignature, identifyPartner } from './auth';
import { intakeRoutes } from './intake-routes';
import { answer, authenticated, endpointOf, type PartnerApiDeps } from './partner-context';
import { statusRoutes } from './status-routes';

const EMPTY = Buffer.alloc(0);

export const PARTNER_API_PREFIX = '/api/v1/inbound';

// The partner API context (spec 4.1, 4.2, 5.1, 8), shared by the intake and status plugins:
// Authorization and X-Timestamp on arrival, before the body is read; the body kept as raw bytes;
// then X-Signature over those bytes and the partner's rate limit; every error as {error, message}.
export function partnerApi(deps: PartnerApiDeps) {
  const { partners, intake, logger } = deps;
  return async function register(app: FastifyInstance): Promise<void> {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: intake.bodyLimitBytes }, (_req, body, done) => done(null, body));
    app.decorateRequest('inbound', null);

    app.addHook('onRequest', async (req) => {
      req.inbound = { receivedAtMs: Date.now(), partner: null, outcome: 'error' };
      req.inbound.partner = await identifyPartner(req, { partners, authFailures: deps.authFailures }, intake.timestampToleranceS, req.inbound.receivedAtMs);
    });

    app.addHook('preHandler', async (req) => {
      const partner = authenticated(req);
      checkSignature(partner, partners, Buffer.isBuffer(req.body) ? req.body : EMPTY, req.headers);
      const verdict = await deps.limiter.consume(partner, endpointOf(req));
      if (!verdict.allowed) {
        throw new ApiError('rate_limit_exceeded', { seconds: verdict.retryAfterS }, { 'retry-after': String(verdict.retryAfterS) });
      }
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
      logger.info({ endpoint: endpointOf(req), partner_id: partnerId, outcome: ctx.outcome, http_status: reply.statusCode, ms }, 'partner request');
    });

    await app.register(intakeRoutes(deps));
    await app.register(statusRoutes(deps));
  };
}

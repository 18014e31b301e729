import type { FastifyInstance } from 'fastify';
import { ApiError } from '../shared/errors';
import { answer, authenticated, type PartnerApiDeps } from './partner-context';

// POST /leads: the partner intake (spec 4.1); the work is in IntakeFlow.
export function intakeRoutes(deps: PartnerApiDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.post('/leads', { config: { endpoint: 'intake' } }, async (req, reply) => {
      // Only a body-less POST without Content-Type gets this far without a parsed body.
      if (!Buffer.isBuffer(req.body)) throw new ApiError('unsupported_media_type');
      const key = req.headers['idempotency-key'];
      if (Array.isArray(key)) throw new ApiError('invalid_idempotency_key');
      const outcome = await deps.flow.handle({
        partner: authenticated(req),
        idempotencyKey: key,
        raw: req.body,
        claim: req.inbound?.claim ?? null,
        requestIp: req.ip,
        receivedAtMs: req.inbound?.receivedAtMs ?? Date.now(),
      });
      return answer(req, reply, outcome.http, outcome.body);
    });
  };
}

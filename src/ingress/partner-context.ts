import type { KeyObject } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { Config } from '../shared/config';
import type { Logger } from '../shared/logger';
import type { PartnerDirectory } from '../shared/partners/partner-directory';
import type { LeadRefStore } from '../shared/store/lead-refs';
import type { LeadStore } from '../shared/store/leads';
import type { IntakeFlow } from './intake-flow';
import { outcomeLabel, type OutcomeLabel } from './intake-result';
import type { IngressMetrics } from './metrics';
import type { Admissions } from './admission';
import type { IntakeClaim } from './idempotency';
import type { AuthFailureLimiter, Endpoint } from './rate-limit';

// What the partner API plugins share: their dependencies and the per-request context that the
// hooks fill in (who is calling) and the handlers complete (what the answer was, for metrics).
export interface PartnerApiDeps {
  partners: PartnerDirectory;
  intake: Config['intake'];
  hashKey: KeyObject; // the request body's hash, for the Idempotency-Key's claim
  logger: Logger;
  flow: IntakeFlow;
  refs: LeadRefStore;
  leads: LeadStore;
  admissions: Admissions;
  authFailures: AuthFailureLimiter;
  metrics: IngressMetrics;
}

export interface InboundContext {
  receivedAtMs: number;
  partner: PartnerDoc | null;
  // Whether the address's failed authentications were checked before the key was looked up (an API
  // key the cache did not know); otherwise the admission checks them.
  authFailuresChecked: boolean;
  // The Idempotency-Key's claim, taken with the admission (intake with a valid key only).
  claim: IntakeClaim | null;
  outcome: OutcomeLabel;
}

declare module 'fastify' {
  interface FastifyRequest {
    inbound: InboundContext | null;
  }
  interface FastifyContextConfig {
    endpoint?: Endpoint;
  }
}

export function authenticated(req: FastifyRequest): PartnerDoc {
  const partner = req.inbound?.partner;
  if (!partner) throw new Error('partner API route reached without an authenticated partner');
  return partner;
}

export function endpointOf(req: FastifyRequest): Endpoint {
  return req.routeOptions.config.endpoint ?? 'intake';
}

export function answer(
  req: FastifyRequest,
  reply: FastifyReply,
  http: number,
  body: object,
  headers: Record<string, string> = {},
): FastifyReply {
  if (req.inbound) req.inbound.outcome = outcomeLabel(http, body);
  return reply.code(http).headers(headers).send(body);
}

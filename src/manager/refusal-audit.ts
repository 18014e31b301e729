import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditAction, AuditActor } from '../shared/audit';
import type { AuditLog } from './audit-log';

declare module 'fastify' {
  interface FastifyContextConfig {
    // The audit action of a route whose refusals (4xx after authentication) are audited too.
    audit?: AuditAction;
    // The route's handler audits the refusals it makes itself (with details of its own): the hook audits only
    // those made before the handler ran (no permission, an id out of scope, a bad request).
    auditsOwnRefusals?: boolean;
  }
}

// Who made a request and which partner it is about; null before authentication.
export type RefusedBy = (
  req: FastifyRequest,
) => { actor: AuditActor; partnerId: string | null; target?: string | null } | null;

// A manager's: the route's :id is the partner on a partner's route, else the entry's target.
export const managerRefusedBy: RefusedBy = (req) => {
  if (!req.actor) return null;
  const raw = (req.params as { id?: unknown }).id;
  const id = typeof raw === 'string' ? raw : null;
  return req.routeOptions.config.partnerParam
    ? { actor: req.actor, partnerId: id }
    : { actor: req.actor, partnerId: null, target: id };
};

// An action that is refused (bad input, unknown id, wrong state, no permission) changes nothing,
// but who tried what is still written down, with the error code it got; never the body. Used by
// the manager API and the partner portal, each telling who asked (`by`).
export function auditRefusals(app: FastifyInstance, audit: AuditLog, by: RefusedBy = managerRefusedBy): void {
  const handled = new WeakSet<FastifyRequest>();
  app.addHook('preHandler', async (req) => {
    if (req.routeOptions.config.auditsOwnRefusals) handled.add(req);
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const { audit: action, auditsOwnRefusals } = req.routeOptions.config;
    const status = reply.statusCode;
    if (!action || status < 400 || status >= 500 || (auditsOwnRefusals && handled.has(req))) return payload;
    const who = by(req);
    if (!who) return payload;
    await audit.record(who.actor, action, {
      partnerId: who.partnerId,
      target: who.target ?? null,
      details: { refused: errorCode(payload), http_status: status },
    });
    return payload;
  });
}

function errorCode(payload: unknown): string {
  try {
    const { error } = JSON.parse(String(payload)) as { error?: unknown };
    return typeof error === 'string' ? error : 'unknown';
  } catch {
    return 'unknown';
  }
}

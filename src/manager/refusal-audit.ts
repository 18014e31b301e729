import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditAction, AuditActor } from '../shared/audit';
import type { AuditLog } from './audit-log';

declare module 'fastify' {
  interface FastifyContextConfig {
    // The audit action of a route whose refusals (4xx after authentication) are audited too.
    audit?: AuditAction;
  }
}

// Who made a request and which partner it is about; null before authentication.
export type RefusedBy = (req: FastifyRequest) => { actor: AuditActor; partnerId: string | null } | null;

// A manager's: the partner is the route's :id, if any.
export const managerRefusedBy: RefusedBy = (req) => {
  if (!req.actor) return null;
  const partnerId = (req.params as { id?: unknown }).id;
  return { actor: req.actor, partnerId: typeof partnerId === 'string' ? partnerId : null };
};

// An action that is refused (bad input, unknown id, wrong state, no permission) changes nothing,
// but who tried what is still written down, with the error code it got; never the body. Used by
// the manager API and the partner portal, each telling who asked (`by`).
export function auditRefusals(app: FastifyInstance, audit: AuditLog, by: RefusedBy = managerRefusedBy): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const action = req.routeOptions.config.audit;
    const status = reply.statusCode;
    if (!action || status < 400 || status >= 500) return payload;
    const who = by(req);
    if (!who) return payload;
    await audit.record(who.actor, action, {
      partnerId: who.partnerId,
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

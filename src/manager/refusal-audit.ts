import type { FastifyInstance } from 'fastify';
import type { AuditAction } from '../shared/audit';
import type { AuditLog } from './audit-log';

declare module 'fastify' {
  interface FastifyContextConfig {
    // The audit action of a manager route whose refusals (4xx after authentication) are audited too.
    audit?: AuditAction;
  }
}

// A manager action that is refused (bad input, unknown partner, wrong state) changes nothing, but
// who tried what is still written down, with the error code it got; never the body.
export function auditRefusals(app: FastifyInstance, audit: AuditLog): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const action = req.routeOptions.config.audit;
    const status = reply.statusCode;
    if (!action || !req.actor || status < 400 || status >= 500) return payload;
    const partnerId = (req.params as { id?: unknown }).id;
    await audit.record(req.actor, action, {
      partnerId: typeof partnerId === 'string' ? partnerId : null,
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

import type { FastifyInstance } from 'fastify';
import { routeSchemas } from '../api-schemas';
import type { CursorRequest } from '../pagination';
import type { ManagerServices } from '../services';

export function auditRoutes({ audit }: Pick<ManagerServices, 'audit'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: CursorRequest & { affiliate_id?: string; action?: string } }>(
      '/api/audit-log',
      { schema: routeSchemas.listAudit, config: { access: 'audit.read', audit: 'audit_log.read' } },
      async (req) => audit.list(req.query, req.query, req.principal.partnerScope),
    );
  };
}

import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../shared/runtime';
import { routeSchemas } from '../api-schemas';
import { listAudit } from '../audit-log';
import type { PageRequest } from '../pagination';

export function auditRoutes(rt: Runtime) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: PageRequest & { affiliate_id?: string; action?: string } }>(
      '/api/audit-log',
      { schema: routeSchemas.listAudit },
      async (req) => listAudit(rt, req.query, req.query),
    );
  };
}

import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../shared/runtime';
import { routeSchemas } from '../api-schemas';
import { listAudit } from '../audit-log';
import type { CursorRequest } from '../pagination';

export function auditRoutes(rt: Runtime) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get<{ Querystring: CursorRequest & { affiliate_id?: string; action?: string } }>(
      '/api/audit-log',
      { schema: routeSchemas.listAudit },
      async (req) => listAudit(rt.mongo.collections, req.query, req.query),
    );
  };
}

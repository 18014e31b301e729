import type { FastifyInstance } from 'fastify';
import { toApiError } from '../shared/http/fastify-errors';
import type { Runtime } from '../shared/runtime';
import { schemas } from '../shared/schemas';
import { SHARED_SCHEMA_IDS } from './api-schemas';
import { requireManagerToken } from './auth';
import { registerConsole } from './console-static';
import { registerOpenApi } from './openapi';
import { auditRefusals } from './refusal-audit';
import { affiliateRoutes } from './routes/affiliates';
import { agentRoutes } from './routes/agents';
import { auditRoutes } from './routes/audit';
import { deliveryRoutes } from './routes/deliveries';
import { endpointRoutes } from './routes/endpoints';
import { leadRoutes } from './routes/leads';
import { overviewRoutes } from './routes/overview';
import { reportRoutes } from './routes/reports';
import { managerValidatorCompiler } from './validation';

// Manager API routes (served by the ingress role), one fastify context of their own: its own
// validation, error answers and authentication, none of which leaks into the partner API.
export function managerRoutes(rt: Runtime) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.setValidatorCompiler(managerValidatorCompiler);
    // curl and most clients send Content-Type: application/json with no body on a bare POST action.
    const json = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
      (body === '' ? done(null, {}) : json(req, body as string, done)));
    // Response schemas document the answers; the views built in code decide what is sent.
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    app.setErrorHandler((err, req, reply) => {
      const apiError = toApiError(err, rt.config.intake.bodyLimitBytes);
      if (apiError.status >= 500) req.log.error({ err }, 'manager request failed');
      return reply.code(apiError.status).headers(apiError.headers).send(apiError.body());
    });
    for (const id of SHARED_SCHEMA_IDS) app.addSchema(schemas.get(id) as { $id: string });
    await registerOpenApi(app, rt.config.serviceName);
    // Public like the document: the page holds no data; it signs in against the API below.
    await registerConsole(app, rt.logger);

    await app.register(async (secured) => {
      requireManagerToken(secured, rt.config.managerTokens);
      auditRefusals(secured, rt);
      await secured.register(affiliateRoutes(rt));
      await secured.register(deliveryRoutes(rt));
      await secured.register(endpointRoutes(rt));
      await secured.register(agentRoutes(rt));
      await secured.register(auditRoutes(rt));
      await secured.register(leadRoutes(rt));
      await secured.register(overviewRoutes(rt));
      await secured.register(reportRoutes(rt));
    });
  };
}

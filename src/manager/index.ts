import type { FastifyInstance } from 'fastify';
import { toApiError } from '../shared/http/fastify-errors';
import { schemas } from '../shared/schemas';
import { systemClock } from '../shared/clock';
import { alertPreferenceRoutes } from '../alerts/commands';
import { SHARED_SCHEMA_IDS } from './api-schemas';
import { registerConsole } from './console-static';
import { registerIdentity } from './identity';
import { registerPortal } from './portal/portal-static';
import { registerOpenApi } from './openapi';
import { partnerPortal } from './portal';
import { auditRefusals } from './refusal-audit';
import { affiliateRoutes } from './routes/affiliates';
import { agentRoutes } from './routes/agents';
import { auditRoutes } from './routes/audit';
import { contactRoutes } from './routes/contacts';
import { deliveryRoutes } from './routes/deliveries';
import { endpointRoutes } from './routes/endpoints';
import { leadRoutes } from './routes/leads';
import { mailRoutes } from './routes/mail';
import { overviewRoutes } from './routes/overview';
import { reportRoutes } from './routes/reports';
import { managerServices, type ManagerOptions } from './services';
import { workspaceRoutes } from './workspace';
import { managerValidatorCompiler } from './validation';

export type { ManagerOptions } from './services';

// The manager API and console: a fastify plugin the process hosting the ingress role registers
// (src/app.ts), one context of its own: its own validation, error answers and authentication, none
// of which leaks into the partner API. Each route plugin gets the services it uses.
export async function managerPlugin(app: FastifyInstance, o: ManagerOptions): Promise<void> {
  const services = managerServices(o);
  app.setValidatorCompiler(managerValidatorCompiler);
  // curl and most clients send Content-Type: application/json with no body on a bare POST action.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    body === '' ? done(null, {}) : json(req, body as string, done),
  );
  // Response schemas document the answers; the views built in code decide what is sent.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler((err, req, reply) => {
    const apiError = toApiError(err, o.config.bodyLimitBytes);
    if (apiError.status >= 500) req.log.error({ err }, 'manager request failed');
    return reply.code(apiError.status).headers(apiError.headers).send(apiError.body());
  });
  for (const id of SHARED_SCHEMA_IDS) app.addSchema(schemas.get(id) as { $id: string });
  await registerOpenApi(app, o.config.serviceName);
  // Public like the document: the page holds no data; it signs in against the API below.
  await registerConsole(app, o.logger);
  await registerPortal(app, o.logger);

  // The partner portal's API: a context of its own (its cookie, sessions and authentication).
  const portal = partnerPortal(o, services, systemClock);
  await app.register(portal.plugin);

  await app.register(async (secured) => {
    await registerIdentity(secured, {
      config: o.config,
      db: o.mongo.db,
      redis: o.redis,
      cipher: o.cipher,
      audit: services.audit,
      clock: systemClock,
      mailer: o.mailer,
      partnerExists: async (id) => (await services.partners.find(id)) !== null,
      agentExists: async (id) => (await services.agents.find(id)) !== null,
    });
    auditRefusals(secured, services.audit);
    await secured.register(portal.invitations);
    await secured.register(portal.emails);
    await secured.register(
      affiliateRoutes({
        ...services,
        statusCatalogFile: o.config.statusCatalogFile,
        allowHttp: o.config.callbacks.allowHttp,
      }),
    );
    await secured.register(deliveryRoutes(services));
    await secured.register(endpointRoutes({ ...services, maxRangeS: o.config.replay.maxRangeS }));
    await secured.register(agentRoutes(services));
    await secured.register(auditRoutes(services));
    await secured.register(leadRoutes(services));
    await secured.register(contactRoutes(services));
    await secured.register(overviewRoutes(services));
    await secured.register(reportRoutes(services));
    await secured.register(mailRoutes(o.mailer?.outbox ?? null));
    await secured.register(alertPreferenceRoutes('manager', { db: o.mongo.db, clock: systemClock }));
    await secured.register(workspaceRoutes(o, services));
  });
}

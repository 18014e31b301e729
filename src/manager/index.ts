import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { systemClock } from '../shared/clock';
import { apiContext } from './api-context';
import { alertPreferenceRoutes } from '../alerts/commands';
import { registerConsole } from './console-static';
import { registerIdentity } from './identity';
import { registerOpenApi } from './openapi';
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
import type { ManagerOptions, ManagerServices } from './services';
import { workspaceRoutes } from './workspace';

export { managerServices, type ManagerOptions, type ManagerServices } from './services';

// What the manager plugin is given besides its options: the services it shares with the partner
// portal (src/app.ts builds both over the same ones), and the portal's routes of the manager API (the
// invitation of a partner's first admin, freeing a portal email).
export interface ManagerPluginOptions extends ManagerOptions {
  services: ManagerServices;
  portalRoutes: readonly FastifyPluginAsync[];
}

// The manager API and console: a fastify plugin the process hosting the ingress role registers
// (src/app.ts), one context of its own: its own validation, error answers and authentication, none
// of which leaks into the partner API. Each route plugin gets the services it uses.
export async function managerPlugin(app: FastifyInstance, o: ManagerPluginOptions): Promise<void> {
  const { services } = o;
  apiContext(app, { name: 'manager', bodyLimitBytes: o.config.bodyLimitBytes });
  await registerOpenApi(app, o.config.serviceName);
  // Public like the document: the page holds no data; it signs in against the API below.
  await registerConsole(app, o.logger);

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
    for (const routes of o.portalRoutes) await secured.register(routes);
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

import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../shared/runtime';
import { routeSchemas } from '../api-schemas';
import { OverviewSampler } from '../overview/overview-sampler';

// The console's overview charts: counters of this process sampled in memory, no database read.
export function overviewRoutes(rt: Runtime) {
  return async function register(app: FastifyInstance): Promise<void> {
    const sampler = new OverviewSampler(rt.metrics);
    await sampler.start();
    app.addHook('onClose', async () => sampler.stop());
    app.get('/api/overview', { schema: routeSchemas.overview }, async () => sampler.overview());
  };
}

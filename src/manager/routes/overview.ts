import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { routeSchemas } from '../api-schemas';
import { OverviewSampler } from '../overview/overview-sampler';
import { dayTrend } from '../reports/report-reader';
import type { ManagerServices } from '../services';

// The console's overview: the last hour per minute from this process's counters sampled in memory
// (a per-minute rate the daily reports cannot give), and the last 14 days per day from the reports
// (stored: they survive restarts and count every instance's work).
export function overviewRoutes({ cells, metrics }: Pick<ManagerServices, 'cells'> & { metrics: Registry }) {
  return async function register(app: FastifyInstance): Promise<void> {
    const sampler = new OverviewSampler(metrics);
    await sampler.start();
    app.addHook('onClose', async () => sampler.stop());
    app.get('/api/overview', { schema: routeSchemas.overview }, async () => ({ ...(await sampler.overview()), days: await dayTrend(cells, new Date()) }));
  };
}

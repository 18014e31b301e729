import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../shared/clock';
import { routeSchemas } from '../api-schemas';
import { lastHour } from '../overview/overview-reader';
import { dayTrend } from '../reports/report-reader';
import type { ManagerServices } from '../services';

// The console's overview: the last hour per minute and the last 14 days per day, both from read
// models (stored: they survive restarts and count every instance's work).
export function overviewRoutes({ cells, minutes }: Pick<ManagerServices, 'cells' | 'minutes'>) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get('/api/overview', { schema: routeSchemas.overview, config: { access: 'overview.read' } }, async () => ({
      ...(await lastHour(minutes, systemClock)),
      days: await dayTrend(cells, systemClock.now()),
    }));
  };
}

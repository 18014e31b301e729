import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../shared/clock';
import { loadStatuses } from '../../shared/status-catalog';
import type { ManagerOptions, ManagerServices } from '../services';
import { deskRoutes } from './desk-routes';
import { teamRoutes } from './team-routes';
import { workspaceDeps } from './workspace-deps';

// The agent workspace (/api/workspace/...): an agent's queue, lead cards and outcomes; a
// supervisor's team queues and reassignment. One plugin, its services built here.
export function workspaceRoutes(o: ManagerOptions, services: ManagerServices) {
  const deps = workspaceDeps(o, services, loadStatuses(o.config.statusCatalogFile), systemClock);
  return async function register(app: FastifyInstance): Promise<void> {
    await app.register(deskRoutes(deps));
    await app.register(teamRoutes(deps));
  };
}

import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../shared/runtime';

// Manager API routes (served by the ingress role).
export function managerRoutes(_rt: Runtime) {
  return async function register(_app: FastifyInstance): Promise<void> {};
}

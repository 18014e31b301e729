import type { FastifyInstance } from 'fastify';
import type { ReadinessCheck } from './http/ops-routes';

// What a started role gives back to the process: optional HTTP routes, its own readiness checks
// (consumers running) and a stop that drains in-flight work.
export interface RoleHandle {
  name: string;
  routes?: (app: FastifyInstance) => Promise<void>;
  readiness?: ReadinessCheck[];
  stop(): Promise<void>;
}

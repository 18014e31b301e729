import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './shared/config';
import { startDispatcher } from './dispatcher';
import { opsRoutes } from './shared/http/ops-routes';
import { startIngress } from './ingress';
import { managerRoutes } from './manager';
import type { Logger } from './shared/logger';
import { startProcessor } from './processor';
import type { RoleHandle } from './shared/role';
import { startRuntime, type Runtime } from './shared/runtime';

export interface App {
  runtime: Runtime;
  http: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

// Starts the configured roles in this process behind one HTTP server (ops endpoints always; the
// partner and manager APIs when the ingress role runs here).
export async function startApp(config: Config, logger: Logger): Promise<App> {
  const runtime = await startRuntime(config, logger);
  const roles: RoleHandle[] = [];
  try {
    if (config.roles.includes('processor')) roles.push(await startProcessor(runtime));
    if (config.roles.includes('dispatcher')) roles.push(await startDispatcher(runtime));
    if (config.roles.includes('ingress')) roles.push(await startIngress(runtime));
  } catch (err) {
    await Promise.allSettled(roles.map((r) => r.stop()));
    await runtime.close();
    throw err;
  }

  const http = Fastify({
    loggerInstance: logger.child({ component: 'http' }) as FastifyBaseLogger,
    trustProxy: config.http.trustedProxies.length > 0 ? [...config.http.trustedProxies] : false,
    bodyLimit: config.intake.bodyLimitBytes,
  });
  const checks = [...runtime.readiness, ...roles.flatMap((r) => r.readiness ?? [])];
  await http.register(opsRoutes(checks, runtime.metrics));
  for (const role of roles) if (role.routes) await http.register(role.routes);
  if (config.roles.includes('ingress')) await http.register(managerRoutes(runtime));
  const url = await http.listen({ host: config.http.host, port: config.http.port });
  logger.info({ url, roles: config.roles }, 'lead intake started');

  return {
    runtime,
    http,
    url,
    async stop() {
      await http.close();
      for (const role of [...roles].reverse()) await role.stop();
      await runtime.close();
    },
  };
}

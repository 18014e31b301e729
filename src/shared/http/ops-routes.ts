import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

// /healthz: the process runs. /readyz: every dependency of this process's roles answers.
// /metrics: Prometheus text format.
export function opsRoutes(checks: readonly ReadinessCheck[], metrics: Registry) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_req, reply) => {
      const results = await Promise.all(
        checks.map(async ({ name, check }) => {
          try {
            await withTimeout(check(), 2000);
            return [name, 'ok'] as const;
          } catch (err) {
            return [name, (err as Error).message || 'failed'] as const;
          }
        }),
      );
      const ready = results.every(([, r]) => r === 'ok');
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) });
    });
    app.get('/metrics', async (_req, reply) => reply.type(metrics.contentType).send(await metrics.metrics()));
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

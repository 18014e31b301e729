import Redis from 'ioredis';
import type { Config } from '../config';

// One place that builds Redis connections. Commands fail fast rather than queue while Redis is
// down, so callers answer a retryable error instead of hanging. Commands issued in the same tick go
// out as one write (auto-pipelining): under load the ingress sends several per request, and a write
// per command cost more CPU than the commands.
export function createRedis(config: Config, purpose: string): Redis {
  return new Redis(config.redis.url, {
    keyPrefix: config.redis.prefix,
    connectionName: `lead-intake-${purpose}`,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    lazyConnect: false,
    enableAutoPipelining: true,
    // A Redis that takes connections but answers nothing must not hold every intake and status
    // request (admission, rate limit, idempotency): each command gives up, and the request answers
    // 503 (driver-errors.ts).
    commandTimeout: config.redis.commandTimeoutMs,
  });
}

export type { Redis };

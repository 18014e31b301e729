import Redis from 'ioredis';
import type { Config } from '../config';

// One place that builds Redis connections. Commands fail fast rather than queue while Redis is
// down, so callers answer a retryable error instead of hanging.
export function createRedis(config: Config, purpose: string): Redis {
  return new Redis(config.redis.url, {
    keyPrefix: config.redis.prefix,
    connectionName: `lead-intake-${purpose}`,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
}

export type { Redis };

import type { EnvReader } from './env-reader';

export interface HttpConfig {
  readonly host: string;
  readonly port: number;
  readonly trustedProxies: readonly string[];
}

export interface MongoConfig {
  readonly url: string;
  readonly db: string;
}

export interface RedisConfig {
  readonly url: string;
  readonly prefix: string;
  // How long any Redis command may wait for its answer (queued while reconnecting included).
  readonly commandTimeoutMs: number;
}

// Where this process listens, and the stores it connects to.
export function readServices(r: EnvReader): { http: HttpConfig; mongo: MongoConfig; redis: RedisConfig } {
  return {
    http: {
      host: r.string('HTTP_HOST', '0.0.0.0'),
      port: r.int('HTTP_PORT', 8080, 0, 65535),
      trustedProxies: r.list('TRUSTED_PROXIES'),
    },
    mongo: {
      url: r.url('MONGO_URL', 'mongodb://127.0.0.1:27017', ['mongodb:', 'mongodb+srv:']),
      db: r.string('MONGO_DB', 'lead_intake'),
    },
    redis: {
      url: r.url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
      prefix: r.string('REDIS_PREFIX', 'li:'),
      commandTimeoutMs: r.int('REDIS_COMMAND_TIMEOUT_MS', 1000, 50, 60000),
    },
  };
}

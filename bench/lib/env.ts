import { randomBytes } from 'node:crypto';
export { freePort } from '../../test/support/free-port';

export const MANAGER_TOKEN = 'bench_9d2c5e8a1b4d7f0c3e6a9b2d5f8c5f0c2e9a8b71d4c3e6a9f02b4d8c1e7a3b6f';

// Where the real servers are: the environment (e.g. `eval "$(bash scripts/services.sh env)"`), or
// the local defaults. MONGO_URL may point at any MongoDB-wire server (FerretDB on SQLite or
// PostgreSQL, MongoDB itself): every figure that touches MongoDB is measured against it.
export interface ServicesEnv {
  [name: string]: string;
  KAFKA_BROKERS: string;
  MONGO_URL: string;
  REDIS_URL: string;
  SCHEMA_REGISTRY_URL: string;
}

export function servicesEnv(): ServicesEnv {
  return {
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    MONGO_URL: process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7',
  };
}

export interface ScenarioEnv {
  tag: string;
  env: Record<string, string>;
}

// Each scenario runs in a namespace of its own (topic prefix, database, Redis prefix) that is
// removed afterwards, so scenarios never see each other's backlog or data, and a FerretDB table
// scan measures this scenario's collection sizes only. Settings are the production defaults except
// where a benchmark needs otherwise (private http callbacks to the local receiver; overrides).
export function scenarioEnv(name: string, logLevel: string, overrides: Record<string, string> = {}): ScenarioEnv {
  const tag = `${name.replace(/[^a-z0-9]/g, '')}${randomBytes(3).toString('hex')}`;
  return {
    tag,
    env: {
      ...servicesEnv(),
      HTTP_HOST: '127.0.0.1',
      LOG_LEVEL: logLevel,
      TOPIC_PREFIX: `bench.${tag}.`,
      MONGO_DB: `bench_${tag}`,
      REDIS_PREFIX: `bench:${tag}:`,
      ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      HASH_KEY: randomBytes(32).toString('base64'),
      MANAGER_TOKENS: MANAGER_TOKEN,
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_ALLOW_HTTP: 'true',
      ...overrides,
    },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

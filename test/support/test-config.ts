import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/shared/config';
import { serviceEnv } from '../setup/services-env';

export const MANAGER_TOKEN = 'test_5f0c2e9a8b71d4c3e6a9f02b4d8c1e7a3b6f9d2c5e8a1b4d7f0c3e6a9b2d5f8c';

// A configuration of its own for each test file: its own topic prefix, database and Redis prefix,
// so files never see each other's data and can run in parallel.
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig(testEnv(overrides));
}

// The same, as environment variables, for starting a role in a child process.
export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const tag = randomBytes(4).toString('hex');
  return {
    ...serviceEnv(),
    ROLE: 'all',
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    TOPIC_PREFIX: `t${tag}.`,
    MONGO_DB: `t_${tag}`,
    REDIS_PREFIX: `t${tag}:`,
    ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    HASH_KEY: randomBytes(32).toString('base64'),
    MANAGER_TOKENS: MANAGER_TOKEN,
    CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    CALLBACK_ALLOW_HTTP: 'true',
    DISTRIBUTION_INTERVAL_MS: '500',
    KAFKA_SESSION_TIMEOUT_MS: '10000',
    // The apps of a test file run in its jest worker, whose event loop also compiles each module as it
    // is first imported: a reply sitting unread while it does so must not read as a silent Redis
    // (test/api/partner-api-redis-silent.test.ts sets the default back to test that).
    REDIS_COMMAND_TIMEOUT_MS: '5000',
    // A test's first leads meet a processor whose modules, schemas and connections are all new, on
    // a machine running a second test file beside it: tests of the reply timeout set their own.
    INTAKE_REPLY_TIMEOUT_MS: '15000',
    // A stop waits for each consumer's pending fetch: short fetches keep the suite's many stops quick.
    KAFKA_FETCH_MAX_WAIT_MS: '1000',
    ...overrides,
  };
}

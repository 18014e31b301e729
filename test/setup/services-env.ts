// Where the integration tests find the real servers: the environment (set by scripts/test.sh from
// scripts/services.sh, or by the testcontainers branch of global-setup.ts).
export const serviceEnv = () => ({
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  MONGO_URL: process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  SCHEMA_REGISTRY_URL: process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7',
});

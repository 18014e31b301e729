import { ConfigError, loadSetupConfig } from '../../src/shared/config';

// Topic durability comes from configuration: 1 copy locally and in tests, what the chart sets in production.
describe('KAFKA_REPLICATION_FACTOR and KAFKA_MIN_INSYNC_REPLICAS', () => {
  it('default to 1 and 1, for a single local broker', () => {
    expect(loadSetupConfig({}).kafka).toMatchObject({ replicationFactor: 1, minInsyncReplicas: 1 });
  });

  it('take what the environment says', () => {
    expect(loadSetupConfig({ KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' }).kafka).toMatchObject({
      replicationFactor: 3,
      minInsyncReplicas: 2,
    });
  });

  it.each([
    [{ KAFKA_REPLICATION_FACTOR: '0' }, 'KAFKA_REPLICATION_FACTOR'],
    [{ KAFKA_REPLICATION_FACTOR: 'three' }, 'KAFKA_REPLICATION_FACTOR'],
    [{ KAFKA_MIN_INSYNC_REPLICAS: '0' }, 'KAFKA_MIN_INSYNC_REPLICAS'],
    [{ KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '4' }, 'KAFKA_MIN_INSYNC_REPLICAS'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadSetupConfig(env)).toThrow(ConfigError);
    expect(() => loadSetupConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });
});

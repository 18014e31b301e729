import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/shared/config';

// What a fetch of the dispatcher's consumers may bring: defaults, and a bad value stops the
// process naming the variable.
const base = {
  ROLE: 'dispatcher',
  ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  HASH_KEY: randomBytes(32).toString('base64'),
};

describe('dispatcher fetch bytes', () => {
  it("default to kafkajs's 1 MB a partition and 10 MB a fetch", () => {
    expect(loadConfig(base).dispatcherFetch).toEqual({ maxBytesPerPartition: 1048576, maxBytes: 10485760 });
  });

  it('take what the environment says', () => {
    const config = loadConfig({
      ...base,
      DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION: '65536',
      DISPATCHER_FETCH_MAX_BYTES: '1048576',
    });
    expect(config.dispatcherFetch).toEqual({ maxBytesPerPartition: 65536, maxBytes: 1048576 });
  });

  it('refuse a fetch smaller than a partition share, or a share too small for a large event', () => {
    expect(() =>
      loadConfig({ ...base, DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION: '524288', DISPATCHER_FETCH_MAX_BYTES: '262144' }),
    ).toThrow(/DISPATCHER_FETCH_MAX_BYTES must not be below DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION/);
    expect(() => loadConfig({ ...base, DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION: '1024' })).toThrow(
      /DISPATCHER_FETCH_MAX_BYTES_PER_PARTITION/,
    );
  });
});

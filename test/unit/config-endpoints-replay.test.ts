import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/shared/config';

// Auto-pause thresholds, health reports, resume and replay limits: defaults, and a bad
// value stops the process naming the variable.
const base = {
  ROLE: 'dispatcher',
  ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  HASH_KEY: randomBytes(32).toString('base64'),
};

describe('endpoint and replay settings', () => {
  it('default to a pause after 24 h of failures (5 in a row at least), reports every 5 s, a circuit open after 20 failures in a row for at most 60 s, replays of 7 days at 20/s', () => {
    const config = loadConfig(base);
    expect(config.endpoints).toEqual({
      pauseAfterS: 86400,
      pauseMinFailures: 5,
      healthReportMs: 5000,
      circuitFailures: 20,
      circuitOpenS: 60,
    });
    expect(config.replay).toEqual({ maxRangeS: 604800, ratePerS: 20 });
  });

  it('take what the environment says', () => {
    const config = loadConfig({
      ...base,
      ENDPOINT_PAUSE_AFTER_S: '3600',
      ENDPOINT_PAUSE_MIN_FAILURES: '20',
      ENDPOINT_CIRCUIT_FAILURES: '3',
      ENDPOINT_CIRCUIT_OPEN_S: '300',
      REPLAY_MAX_RANGE_S: '86400',
      REPLAY_RATE_PER_S: '5',
    });
    expect(config.endpoints).toMatchObject({
      pauseAfterS: 3600,
      pauseMinFailures: 20,
      circuitFailures: 3,
      circuitOpenS: 300,
    });
    expect(config.replay).toEqual({ maxRangeS: 86400, ratePerS: 5 });
  });

  it.each([
    ['ENDPOINT_PAUSE_AFTER_S', '0'],
    ['ENDPOINT_PAUSE_AFTER_S', 'a day'],
    ['ENDPOINT_PAUSE_MIN_FAILURES', '0'],
    ['ENDPOINT_HEALTH_REPORT_MS', '10'],
    ['ENDPOINT_CIRCUIT_FAILURES', '0'],
    ['ENDPOINT_CIRCUIT_OPEN_S', '0'],
    ['ENDPOINT_CIRCUIT_OPEN_S', '3601'],
    ['REPLAY_MAX_RANGE_S', '59'],
    ['REPLAY_RATE_PER_S', '-1'],
  ])('refuses %s=%s naming it', (variable, value) => {
    expect(() => loadConfig({ ...base, [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, [variable]: value })).toThrow(
      new RegExp(`^Invalid configuration: ${variable} `),
    );
  });
});

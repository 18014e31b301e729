import { randomBytes } from 'node:crypto';
import { retrySchedule } from '../../src/dispatcher/retry-policy';
import { loadConfig } from '../../src/shared/config';

// The limits of spec 6.3 and 8 (and the choices of docs/decisions.md) are the configuration's
// defaults: an installation may change them, so a test of the behaviour may set its own, and
// these hold the values a partner is promised.
const env = {
  ROLE: 'all',
  ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  HASH_KEY: randomBytes(32).toString('base64'),
  MANAGER_TOKENS: `mgr_${randomBytes(32).toString('hex')}`,
};
const config = loadConfig(env);

describe('the default limits', () => {
  it('allow 60 intake requests a minute per partner', () => expect(config.intake.intakePerMinute).toBe(60));

  it('allow 120 status look-ups a minute per partner', () => expect(config.intake.statusPerMinute).toBe(120));

  it('keep an Idempotency-Key 24 hours', () => expect(config.intake.idempotencyTtlS).toBe(24 * 3600));

  it('match duplicates over 30 days', () => expect(config.rules.dedupWindowDays).toBe(30));

  it('wait 10 seconds for a callback answer', () => expect(config.callbacks.timeoutMs).toBe(10_000));

  it('attempt a callback 5 times: at once, then after 1 minute, 5 minutes, 30 minutes and 2 hours', () => {
    const schedule = retrySchedule(config.callbacks.retryDelaysS);
    expect(schedule.maxAttempts).toBe(5);
    expect([2, 3, 4, 5].map((n) => schedule.waitBefore(n).delayMs / 60_000)).toEqual([1, 5, 30, 120]);
  });

  it('take an X-Timestamp 300 seconds either side of the clock', () =>
    expect(config.intake.timestampToleranceS).toBe(300));

  it('take a body of 64 KiB', () => expect(config.intake.bodyLimitBytes).toBe(64 * 1024));

  it('throttle an address after 20 unknown bearer tokens, unless TOKEN_FAILURES_PER_ADDRESS says otherwise', () => {
    expect(config.accounts.tokenFailuresPerAddress).toBe(20);
    expect(loadConfig({ ...env, TOKEN_FAILURES_PER_ADDRESS: '500' }).accounts.tokenFailuresPerAddress).toBe(500);
  });
});

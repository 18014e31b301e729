import { DeviceCookies } from '../../src/identity/device-cookie';
import {
  limitsReached,
  pendingOpen,
  slowDelayMs,
  throttleVerdict,
  type FailureCounts,
} from '../../src/identity/throttle-policy';
import { loadConfig } from '../../src/shared/config';
import { testConfig, testEnv } from '../support/test-config';

const limits = testConfig().accounts.signIn;
const none: FailureCounts = {
  source: 0,
  address: 0,
  account: 0,
  device: null,
  sourceTtlMs: 0,
  addressTtlMs: 0,
  deviceTtlMs: 0,
};
const counts = (c: Partial<FailureCounts>): FailureCounts => ({ ...none, ...c });

describe('the sign-in throttle', () => {
  it('locks a network out of an account at five failures, and out of all at fifty', () => {
    expect(throttleVerdict(counts({ source: 4 }), limits)).toEqual({ kind: 'allow' });
    expect(throttleVerdict(counts({ source: 5, sourceTtlMs: 1500 }), limits)).toEqual({
      kind: 'refuse',
      reason: 'source',
      retryAfterS: 2,
    });
    expect(throttleVerdict(counts({ address: 50, addressTtlMs: 60_000 }), limits)).toMatchObject({
      reason: 'address',
      retryAfterS: 60,
    });
  });

  it('slows an account down after ten failures from anywhere, 1 s doubling up to five minutes, never locks it', () => {
    expect(slowDelayMs(9, limits)).toBe(0);
    expect(slowDelayMs(10, limits)).toBe(1000);
    expect(slowDelayMs(13, limits)).toBe(8000);
    expect(slowDelayMs(1000, limits)).toBe(300_000);
    expect(throttleVerdict(counts({ account: 9 }), limits)).toEqual({ kind: 'allow' });
    expect(throttleVerdict(counts({ account: 12 }), limits)).toEqual({ kind: 'space', delayMs: 4000 });
    expect(throttleVerdict(counts({ account: 1000 }), limits)).toEqual({ kind: 'space', delayMs: 300_000 });
  });

  it("answers a known device by its own counter only: others' failures do not hold it back", () => {
    const attacked = { source: 50, address: 500, account: 1000 };
    expect(throttleVerdict(counts({ ...attacked, device: 9 }), limits)).toEqual({ kind: 'allow' });
    expect(throttleVerdict(counts({ ...attacked, device: 10, deviceTtlMs: 900_000 }), limits)).toEqual({
      kind: 'refuse',
      reason: 'device',
      retryAfterS: 900,
    });
    expect(throttleVerdict(counts({ source: 5, sourceTtlMs: 1 }), limits)).toMatchObject({ reason: 'source' });
  });

  it('names the limits a failure reached, once', () => {
    expect(limitsReached({ source: 5, address: 7, device: null }, limits)).toEqual(['source']);
    expect(limitsReached({ source: 6, address: 7, device: null }, limits)).toEqual([]);
    expect(limitsReached({ source: 2, address: 50, device: null }, limits)).toEqual(['address']);
    expect(limitsReached({ source: 5, address: 50, device: null }, limits)).toEqual(['source', 'address']);
    expect(limitsReached({ source: 5, address: 7, device: 3 }, limits)).toEqual([]);
    expect(limitsReached({ source: 1, address: 1, device: 10 }, limits)).toEqual(['device']);
  });

  it('gives a pending sign-in three second-factor tries', () => {
    expect([0, 1, 2, 3].map((n) => pendingOpen(n, limits))).toEqual([true, true, true, false]);
  });

  it('takes its limits from the environment, checked', () => {
    const env = testEnv({ SIGN_IN_FAILURES_PER_SOURCE: '3', SIGN_IN_WINDOW_S: '600' });
    expect(loadConfig(env).accounts.signIn).toMatchObject({ perSource: 3, windowS: 600 });
    expect(() => loadConfig({ ...env, SIGN_IN_SECOND_FACTOR_TRIES: '0' })).toThrow(/SIGN_IN_SECOND_FACTOR_TRIES/);
    expect(() => loadConfig({ ...env, SIGN_IN_MAX_DELAY_S: '700' })).toThrow(/SIGN_IN_MAX_DELAY_S/);
  });
});

describe('device cookies', () => {
  const manager = new DeviceCookies('a session secret of some length', 'manager');

  it('know a cookie they gave for the same email, in any case, and nothing else', () => {
    const cookie = manager.issue('Ann@Example.com');
    const nonce = cookie.split('.')[0];
    expect(manager.nonceOf(cookie, 'ann@example.com')).toBe(nonce);
    expect(manager.nonceOf(cookie, 'bob@example.com')).toBeNull();
    expect(
      manager.nonceOf(
        cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
        'ann@example.com',
      ),
    ).toBeNull();
    expect(manager.nonceOf(`${cookie}.x`, 'ann@example.com')).toBeNull();
    expect(manager.nonceOf(undefined, 'ann@example.com')).toBeNull();
    expect(
      new DeviceCookies('a session secret of some length', 'portal').nonceOf(cookie, 'ann@example.com'),
    ).toBeNull();
    expect(new DeviceCookies('another secret', 'manager').nonceOf(cookie, 'ann@example.com')).toBeNull();
  });
});

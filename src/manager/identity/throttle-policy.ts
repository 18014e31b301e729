import type { SignInLimits } from '../../shared/config';

// What the failed sign-ins counted so far allow, for one attempt (OWASP Authentication Cheat Sheet:
// throttle per account and per source, slow down rather than lock an account for everyone, and
// "device cookies" so a browser that signed in before is not locked out by others' failures).
export interface FailureCounts {
  // For this account from this client network, from this network for any account, for this account
  // from anywhere, and for this browser's device cookie (null: no cookie known for this account).
  source: number;
  address: number;
  account: number;
  device: number | null;
  // How long ago the account's last failure was (null: none in the window).
  sinceLastMs: number | null;
  // How long each counter has left in its window.
  sourceTtlMs: number;
  addressTtlMs: number;
  deviceTtlMs: number;
}

export type Verdict =
  { allowed: true } | { allowed: false; reason: 'source' | 'address' | 'device' | 'slow'; retryAfterS: number };

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

// The wait between attempts at an account `failures` failed for, from a browser it does not know:
// none below `slowAfter`, then 1 s doubling with each failure, up to `maxDelayS`.
export function slowDelayMs(failures: number, limits: SignInLimits): number {
  if (failures < limits.slowAfter) return 0;
  return Math.min(limits.maxDelayS, 2 ** Math.min(failures - limits.slowAfter, 30)) * 1000;
}

// A known device answers to its own counter only; any other browser to its network's counters for the
// account and overall, and waits out the account's slow-down.
export function throttleVerdict(c: FailureCounts, limits: SignInLimits): Verdict {
  if (c.device !== null)
    return c.device >= limits.perDevice
      ? { allowed: false, reason: 'device', retryAfterS: seconds(c.deviceTtlMs) }
      : { allowed: true };
  if (c.source >= limits.perSource) return { allowed: false, reason: 'source', retryAfterS: seconds(c.sourceTtlMs) };
  if (c.address >= limits.perAddress)
    return { allowed: false, reason: 'address', retryAfterS: seconds(c.addressTtlMs) };
  const wait = slowDelayMs(c.account, limits) - (c.sinceLastMs ?? Infinity);
  return wait > 0 ? { allowed: false, reason: 'slow', retryAfterS: seconds(wait) } : { allowed: true };
}

// Whether the failure just counted (the counts after it) locked something out: worth an audit entry.
export function lockedNow(c: Pick<FailureCounts, 'source' | 'address' | 'device'>, limits: SignInLimits): boolean {
  return c.device !== null
    ? c.device === limits.perDevice
    : c.source === limits.perSource || c.address === limits.perAddress;
}

// Whether a pending sign-in with `failures` wrong second factors is still open to another try.
export const pendingOpen = (failures: number, limits: Pick<SignInLimits, 'secondFactorTries'>): boolean =>
  failures < limits.secondFactorTries;

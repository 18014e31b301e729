import type { SignInLimits } from '../shared/config';

// What the failed sign-ins counted so far allow, for one attempt (OWASP Authentication Cheat Sheet:
// throttle per account and per source, slow down rather than lock an account for everyone, and
// "device cookies" so a browser that signed in before is not locked out by others' failures).
export interface FailureCounts {
  // Before this attempt, and counting attempts still being verified: for this account from this client
  // network, from this network for any account, for this account from anywhere, and for this browser's
  // device cookie (null: no cookie known for this account).
  source: number;
  address: number;
  account: number;
  device: number | null;
  // How long each counter has left in its window.
  sourceTtlMs: number;
  addressTtlMs: number;
  deviceTtlMs: number;
}

export type RefusedBy = 'source' | 'address' | 'device' | 'slow';

// `space`: allowed only as the one attempt of browsers the account does not know in `delayMs`.
export type Verdict =
  { kind: 'allow' } | { kind: 'space'; delayMs: number } | { kind: 'refuse'; reason: RefusedBy; retryAfterS: number };

export const retryAfterS = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

// The spacing between attempts at an account `failures` failed for, from browsers it does not know:
// none below `slowAfter`, then 1 s doubling with each failure, up to `maxDelayS`.
export function slowDelayMs(failures: number, limits: SignInLimits): number {
  if (failures < limits.slowAfter) return 0;
  return Math.min(limits.maxDelayS, 2 ** Math.min(failures - limits.slowAfter, 30)) * 1000;
}

// A known device answers to its own counter only; any other browser to its network's counters for the
// account and overall, and to the account's slow-down.
export function throttleVerdict(c: FailureCounts, limits: SignInLimits): Verdict {
  const refuse = (reason: RefusedBy, ms: number): Verdict => ({ kind: 'refuse', reason, retryAfterS: retryAfterS(ms) });
  if (c.device !== null) return c.device >= limits.perDevice ? refuse('device', c.deviceTtlMs) : { kind: 'allow' };
  if (c.source >= limits.perSource) return refuse('source', c.sourceTtlMs);
  if (c.address >= limits.perAddress) return refuse('address', c.addressTtlMs);
  const delayMs = slowDelayMs(c.account, limits);
  return delayMs > 0 ? { kind: 'space', delayMs } : { kind: 'allow' };
}

// A limit a failure can reach: the account from one client network, the network, a device cookie.
export type SignInLimit = 'source' | 'address' | 'device';

// The limits a failure (the counts after it) reached, each locking something out: worth an audit entry.
export function limitsReached(
  c: Pick<FailureCounts, 'source' | 'address' | 'device'>,
  limits: SignInLimits,
): SignInLimit[] {
  if (c.device !== null) return c.device === limits.perDevice ? ['device'] : [];
  return [
    ...(c.source === limits.perSource ? (['source'] as const) : []),
    ...(c.address === limits.perAddress ? (['address'] as const) : []),
  ];
}

// Whether a pending sign-in with `failures` wrong second factors is still open to another try.
export const pendingOpen = (failures: number, limits: Pick<SignInLimits, 'secondFactorTries'>): boolean =>
  failures < limits.secondFactorTries;

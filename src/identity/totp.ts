import { Secret, TOTP } from 'otpauth';

// RFC 6238 codes: 6 digits, 30 s steps, SHA-1 (what every authenticator app reads), one step of
// drift either way.
const PERIOD = 30;
const WINDOW = 1;

function totp(secretBase32: string, label = '', issuer = ''): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secretBase32),
  });
}

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

// The otpauth:// URI an authenticator app scans (as a QR code) or takes pasted.
export function totpUri(secretBase32: string, email: string, issuer: string): string {
  return totp(secretBase32, email, issuer).toString();
}

// The time step a code is valid for, or null. A step at or before `lastStep` was used already: a
// replayed code is refused (RFC 6238 section 5.2).
export function totpStep(secretBase32: string, code: string, lastStep: number | null, nowMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secretBase32).validate({ token: code, timestamp: nowMs, window: WINDOW });
  if (delta === null) return null;
  const step = Math.floor(nowMs / 1000 / PERIOD) + delta;
  return lastStep !== null && step <= lastStep ? null : step;
}

// The code for a time (tests and the set-up check use it).
export function totpCode(secretBase32: string, nowMs: number): string {
  return totp(secretBase32).generate({ timestamp: nowMs });
}

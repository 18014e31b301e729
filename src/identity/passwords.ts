import { Algorithm, hash, verify } from '@node-rs/argon2';
import { isCommonPassword } from './common-passwords';

// argon2id at OWASP's Password Storage Cheat Sheet minimum (m=19 MiB, t=2, p=1): memory-hard, so a
// stolen hash costs a guesser what it costs us.
const ARGON2ID = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

// NIST SP 800-63B and OWASP: a length floor, no composition rules, long passphrases welcome, and none a guesser
// tries first (common-passwords.ts); the ceiling only bounds the work one request can ask for.
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `the password must be at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `the password must be at most ${PASSWORD_MAX} characters`;
  if (isCommonPassword(password)) return 'the password is among the most common ones; choose another';
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID);
}

// A hash no password matches, verified when the email names no account (or one without a password),
// so the answer takes as long as for a real account.
let decoy: Promise<string> | null = null;

export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  const target = stored ?? (await decoy);
  const ok = await verify(target, password).catch(() => false);
  return stored !== null && ok;
}

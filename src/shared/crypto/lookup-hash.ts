import { createHash, createHmac, type KeyObject } from 'node:crypto';

// Keyed hash for dedup look-ups: a leaked database cannot be reversed by hashing every phone number.
export function lookupHash(key: KeyObject, kind: 'phone' | 'email', normalised: string): string {
  return createHmac('sha256', key).update(`${kind}:${normalised}`).digest('hex');
}

// Keyed too: a body may hold nothing but a phone, which an unkeyed digest would give away.
export function requestBodyHash(key: KeyObject, raw: Buffer): string {
  return createHmac('sha256', key).update('body:').update(raw).digest('hex');
}

// Unkeyed digest of secrets (API keys, manager tokens): random and long, so nothing to guess.
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

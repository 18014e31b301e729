import { createHash, createHmac, type KeyObject } from 'node:crypto';

// Keyed hash for dedup look-ups (and the burst counters' IPs): a leaked database or Redis cannot
// be reversed by hashing every phone number or address.
export function lookupHash(key: KeyObject, kind: 'phone' | 'email' | 'ip' | 'subnet', normalised: string): string {
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

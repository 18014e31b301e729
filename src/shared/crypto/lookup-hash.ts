import { createHash, createHmac } from 'node:crypto';

// Keyed hash for dedup look-ups: a leaked database cannot be reversed by hashing every phone number.
export function lookupHash(key: Buffer, kind: 'phone' | 'email', normalised: string): string {
  return createHmac('sha256', key).update(`${kind}:${normalised}`).digest('hex');
}

// Unkeyed digest of stored secrets (API keys) and request bodies (idempotency).
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

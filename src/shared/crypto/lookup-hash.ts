import { createHash, createHmac, type KeyObject } from 'node:crypto';

// Keyed hash for dedup look-ups (and the burst counters' IPs): a leaked database or Redis cannot
// be reversed by hashing every phone number or address.
export function lookupHash(key: KeyObject, kind: 'phone' | 'email' | 'ip' | 'subnet', normalised: string): string {
  return createHmac('sha256', key).update(`${kind}:${normalised}`).digest('hex');
}

// The Kafka key of an intake command: the first 12 bits of its phone's lookup hash (3 hex digits,
// 4,096 buckets). The same phone always lands on the same partition, and the buckets spread over 6
// partitions within 9% of even (over 24 within 24%); yet a bucket names no one, even to a holder of
// HASH_KEY: it leaves 1/4,096 of a numbering plan, hundreds of numbers even in a small country's
// mobile plan (docs/decisions.md).
const PHONE_BUCKET_HEX_DIGITS = 3;
export function phoneBucket(phoneHash: string): string {
  return phoneHash.slice(0, PHONE_BUCKET_HEX_DIGITS);
}

// Keyed too: a body may hold nothing but a phone, which an unkeyed digest would give away.
export function requestBodyHash(key: KeyObject, raw: Buffer): string {
  return createHmac('sha256', key).update('body:').update(raw).digest('hex');
}

// Unkeyed digest of secrets (API keys, manager tokens): random and long, so nothing to guess.
export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

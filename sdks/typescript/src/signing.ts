import { createHmac, timingSafeEqual } from 'node:crypto';

export const hmacSha256 = (key: string | Buffer, data: string | Uint8Array): Buffer =>
  createHmac('sha256', key).update(data).digest();

// Constant time: never compare signatures with === (it leaks how many characters matched).
export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

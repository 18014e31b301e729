import { createHmac, timingSafeEqual } from 'node:crypto';

// "sha256=<hex>" HMAC-SHA256 over the exact bytes sent (spec 5.1 and 5.3).
export function sign(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

// Accepts the header with or without the "sha256=" prefix; constant-time on equal lengths.
export function verifySignature(secret: string, body: Buffer | string, header: string | undefined): boolean {
  if (!header) return false;
  const given = header
    .trim()
    .replace(/^sha256=/i, '')
    .toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  const expected = Buffer.from(sign(secret, body).slice('sha256='.length), 'hex');
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

// Whether a Unix-seconds timestamp header lies within tolerance of now.
export function timestampFresh(header: string | undefined, nowMs: number, toleranceS: number): boolean {
  if (!header || !/^\d{1,12}$/.test(header.trim())) return false;
  return Math.abs(nowMs / 1000 - Number(header.trim())) <= toleranceS;
}

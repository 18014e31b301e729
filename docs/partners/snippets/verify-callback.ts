import { createHmac, timingSafeEqual } from 'node:crypto';

const TOLERANCE_S = 300; // the X-Timestamp drift we accept, as the service does for your requests

export type Verdict = 'ok' | 'bad_signature' | 'stale' | 'duplicate';

// headers: names in lower case; rawBody: the exact bytes received, before any JSON parsing.
// seenEventIds: X-Event-Id values already handled (keep them in your database, e.g. a unique key).
export function verifyCallback(
  secret: string,
  headers: Record<string, string | undefined>,
  rawBody: Buffer,
  seenEventIds: Set<string>,
  nowS: number = Date.now() / 1000,
): Verdict {
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from((headers['x-signature'] ?? '').replace(/^sha256=/, ''), 'hex');
  // Constant time: never compare signatures with === (it leaks how many characters matched).
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad_signature';
  const timestamp = headers['x-timestamp'] ?? '';
  if (!/^\d+$/.test(timestamp) || Math.abs(nowS - Number(timestamp)) > TOLERANCE_S) return 'stale';
  const eventId = headers['x-event-id'] ?? '';
  if (seenEventIds.has(eventId)) return 'duplicate'; // a retry of one we have: answer 2xx, do nothing
  seenEventIds.add(eventId);
  return 'ok';
}

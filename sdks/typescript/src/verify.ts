import { LeadIntakeError } from './errors.js';
import type { CallbackPayload } from './generated/partner-api.js';
import { hmacSha256, sameBytes } from './signing.js';

export interface VerifyOptions {
  toleranceS?: number; // how far the signed time may be from this clock (default 300 s)
  nowS?: number;
}

export interface VerifiedCallback {
  eventId: string; // X-Event-Id / webhook-id: drop repeats by it
  event: string;
  timestamp: number;
  payload: CallbackPayload;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

// Verifies a callback in either scheme we sign with: ours (X-Signature over the body, X-Timestamp) or
// Standard Webhooks (webhook-signature over "id.timestamp.body", one signature per secret during a
// rotation's grace). `secrets`: the callback secret, or several while you switch between two.
// Throws LeadIntakeError invalid_signature or invalid_timestamp; the signature is checked first.
export function verifyCallback(
  headers: HeaderBag,
  rawBody: string | Uint8Array,
  secrets: string | readonly string[],
  opts: VerifyOptions = {},
): VerifiedCallback {
  const h = lowerCased(headers);
  const body = Buffer.from(rawBody);
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  const standard = h['webhook-signature'] !== undefined;
  const timestamp = (standard ? h['webhook-timestamp'] : h['x-timestamp']) ?? '';
  const eventId = (standard ? h['webhook-id'] : h['x-event-id']) ?? '';
  const signed = standard
    ? keys.some((k) => standardSignatureMatches(k, eventId, timestamp, body, h['webhook-signature'] ?? ''))
    : keys.some((k) => ourSignatureMatches(k, body, h['x-signature'] ?? ''));
  if (!signed) throw new LeadIntakeError('invalid_signature', 'The callback signature does not verify');
  const nowS = opts.nowS ?? Date.now() / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(nowS - Number(timestamp)) > (opts.toleranceS ?? 300))
    throw new LeadIntakeError('invalid_timestamp', 'The callback timestamp is missing or outside the tolerance');
  const payload = JSON.parse(body.toString('utf8')) as CallbackPayload;
  return { eventId, event: h['x-event'] ?? payload.event, timestamp: Number(timestamp), payload };
}

// Verifies X-Postback-Signature: the HMAC of the full URL as it arrived (scheme, host, then the raw
// path and query, undecoded) with your postback token. Throws LeadIntakeError invalid_signature.
export function verifyPostback(
  fullUrl: string,
  signatureHeader: string | undefined,
  secrets: string | readonly string[],
): true {
  const given = Buffer.from(signatureHeader ?? '');
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  if (keys.some((k) => sameBytes(given, Buffer.from(`sha256=${hmacSha256(k, fullUrl).toString('hex')}`)))) return true;
  throw new LeadIntakeError('invalid_signature', 'The postback signature does not verify');
}

function ourSignatureMatches(secret: string, body: Buffer, header: string): boolean {
  const given = Buffer.from(header.replace(/^sha256=/, '').toLowerCase(), 'hex');
  return sameBytes(given, hmacSha256(secret, body));
}

// A whsec_ secret is base64 of the key; any other secret (a cs_ one kept on switching) is its UTF-8 bytes.
function standardSignatureMatches(secret: string, id: string, ts: string, body: Buffer, header: string): boolean {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  const expected = hmacSha256(key, Buffer.concat([Buffer.from(`${id}.${ts}.`), body]));
  return header
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .some((s) => sameBytes(Buffer.from(s.slice(3), 'base64'), expected));
}

function lowerCased(headers: HeaderBag): Record<string, string | undefined> {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  return Object.fromEntries(entries.map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v]));
}

import { createHmac } from 'node:crypto';
import { sign } from './signature';

// How a partner's callbacks are signed (partner setting signature_scheme). 'spec': X-Signature
// (HMAC-SHA256 of the body) and X-Timestamp, spec 5.3. 'standard-webhooks': webhook-id,
// webhook-timestamp and webhook-signature "v1,<base64 HMAC-SHA256 of id.timestamp.body>"
// (standardwebhooks.com), one signature per secret, space separated, so a receiver that still
// holds the secret a rotation replaced keeps verifying during the grace.
export type SignatureScheme = 'spec' | 'standard-webhooks';

export interface CallbackSigning {
  scheme: SignatureScheme;
  secrets: readonly string[]; // the current secret first; the previous one while a rotation's grace lasts
}

export const WHSEC_PREFIX = 'whsec_';

export function signatureHeaders(
  signing: CallbackSigning,
  eventId: string,
  body: Buffer,
  nowS: number,
): Record<string, string> {
  const [current] = signing.secrets;
  if (current === undefined) throw new Error('no callback secret to sign with');
  if (signing.scheme === 'spec') return { 'x-signature': sign(current, body), 'x-timestamp': String(nowS) };
  const signed = Buffer.concat([Buffer.from(`${eventId}.${nowS}.`, 'utf8'), body]);
  const signatures = signing.secrets.map(
    (s) => `v1,${createHmac('sha256', standardWebhooksKey(s)).update(signed).digest('base64')}`,
  );
  return { 'webhook-id': eventId, 'webhook-timestamp': String(nowS), 'webhook-signature': signatures.join(' ') };
}

// A whsec_ secret is base64 key material; any other secret (one issued before the partner chose
// this scheme) is used as its UTF-8 bytes, i.e. the partner's whsec_ form is "whsec_" + base64 of it.
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith(WHSEC_PREFIX)
    ? Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

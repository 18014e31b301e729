import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from './lookup-hash';

// Prefixed random secrets, recognisable when a partner pastes one into a ticket.
export function newSecret(prefix: 'lk' | 'hs' | 'cs'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

// A callback secret in the form its partner's signature scheme expects: standard-webhooks receivers
// take "whsec_" + base64 of the key.
export function newCallbackSecret(scheme: 'spec' | 'standard-webhooks' | undefined): string {
  return scheme === 'standard-webhooks' ? `whsec_${randomBytes(32).toString('base64')}` : newSecret('cs');
}

export function apiKeyHash(apiKey: string): string {
  return sha256Hex(`api-key:${apiKey}`);
}

export function constantTimeIncludes(candidates: readonly string[], given: string): boolean {
  const g = Buffer.from(given);
  let found = false;
  for (const c of candidates) {
    const b = Buffer.from(c);
    if (b.length === g.length && timingSafeEqual(b, g)) found = true;
  }
  return found;
}

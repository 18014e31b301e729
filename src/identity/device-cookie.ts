import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Realm } from './realm-names';
import { normalEmail } from './accounts';

// A browser's device cookie (OWASP "device cookies"): a random nonce and an HMAC that binds it to the
// realm and the email it signed in as, given at each completed sign-in. A later attempt at that email
// carrying it is counted on the device's own counter, not locked out by others' failures.
export class DeviceCookies {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly realm: Realm,
  ) {
    this.key = createHmac('sha256', secret).update('sign-in-device').digest();
  }

  issue(email: string): string {
    const nonce = randomBytes(16).toString('base64url');
    return `${nonce}.${this.mac(nonce, email)}`;
  }

  // The nonce of a cookie this realm gave for `email`, or null (none, forged, or another person's).
  nonceOf(cookie: string | undefined, email: string): string | null {
    const [nonce, mac, extra] = (cookie ?? '').split('.');
    if (!nonce || !mac || extra !== undefined) return null;
    const expected = Buffer.from(this.mac(nonce, email));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? nonce : null;
  }

  private mac(nonce: string, email: string): string {
    return createHmac('sha256', this.key)
      .update(`${this.realm}|${normalEmail(email)}|${nonce}`)
      .digest('base64url');
  }
}

import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock';
import { isDuplicateKey } from '../shared/mongo/client';
import type { AccountBase, IdentityCollections, PasskeyDoc } from './identity-store';

// Who the browser talks to: the RP ID a credential is bound to (a host name) and the origin the
// browser writes into what the authenticator signs.
export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

// CONSOLE_URL names the console's origin when it is set. Otherwise the request's own Origin (or
// scheme and Host): that is safe because the browser, not the server, binds a credential to the page's
// origin. A page on another origin can neither ask for a credential of this RP ID nor make the browser
// sign this origin into its answer, and the challenge checked lives in this session only.
export function relyingParty(
  serviceName: string,
  consoleUrl: string | null,
  request: { origin?: string; protocol: string; host: string },
): RelyingParty {
  const origin = new URL(consoleUrl ?? request.origin ?? `${request.protocol}://${request.host}`);
  return { id: origin.hostname, name: serviceName, origin: origin.origin };
}

export const requestRelyingParty = (serviceName: string, consoleUrl: string | null, req: FastifyRequest) =>
  relyingParty(serviceName, consoleUrl, { origin: req.headers.origin, protocol: req.protocol, host: req.host });

export type RegistrationOptions = PublicKeyCredentialCreationOptionsJSON;
export type AuthenticationOptions = PublicKeyCredentialRequestOptionsJSON;

const fromBase64url = (s: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(s, 'base64url'));

// Passkeys (WebAuthn) over the `passkeys` collection, with @simplewebauthn/server doing every check of
// the ceremonies. An account's `passkey_ids` lists its credentials; each is read by `_id`. Options
// carry a fresh challenge that the caller keeps in the session and passes back, once, to verify.
export class Passkeys {
  constructor(
    private readonly c: IdentityCollections,
    private readonly clock: Clock,
  ) {}

  async registrationOptions(account: AccountBase, rp: RelyingParty): Promise<RegistrationOptions> {
    const existing = await this.credentials(account);
    return generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: account.email,
      userDisplayName: account.name,
      userID: new TextEncoder().encode(account._id),
      attestationType: 'none',
      // The same authenticator twice would be one factor counted as two.
      excludeCredentials: existing.map((p) => ({ id: p._id, transports: p.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
  }

  // A new passkey of the account, or null when the answer does not verify (or names a credential
  // some account has already). The passkey document is written before the account lists it, so a crash
  // between the two leaves a credential that nothing accepts.
  async register(
    account: AccountBase,
    response: RegistrationResponseJSON,
    name: string,
    challenge: string,
    rp: RelyingParty,
  ): Promise<PasskeyDoc | null> {
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    }).catch(() => null);
    if (!verified?.verified) return null;
    const { credential } = verified.registrationInfo;
    const doc: PasskeyDoc = {
      _id: credential.id,
      account_id: account._id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
      created_at: this.clock.now(),
      last_used_at: null,
    };
    try {
      await this.c.passkeys.insertOne(doc);
    } catch (err) {
      if (isDuplicateKey(err)) return null;
      throw err;
    }
    await this.c.accounts.updateOne(
      { _id: account._id },
      { $addToSet: { passkey_ids: doc._id }, $set: { updated_at: this.clock.now() } },
    );
    return doc;
  }

  async authenticationOptions(account: AccountBase, rp: RelyingParty): Promise<AuthenticationOptions> {
    const credentials = await this.credentials(account);
    return generateAuthenticationOptions({
      rpID: rp.id,
      allowCredentials: credentials.map((p) => ({ id: p._id, transports: p.transports })),
      userVerification: 'preferred',
    });
  }

  // The passkey that signed the challenge, or null. Its signature counter moves only from the value
  // read: of two answers raced with one counter, one passes.
  async authenticate(
    account: AccountBase,
    response: AuthenticationResponseJSON,
    challenge: string,
    rp: RelyingParty,
  ): Promise<PasskeyDoc | null> {
    if (!account.passkey_ids.includes(response.id)) return null;
    const doc = await this.c.passkeys.findOne({ _id: response.id });
    if (!doc || doc.account_id !== account._id) return null;
    const credential: WebAuthnCredential = {
      id: doc._id,
      publicKey: fromBase64url(doc.public_key),
      counter: doc.counter,
      transports: doc.transports,
    };
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential,
      requireUserVerification: false,
    }).catch(() => null);
    if (!verified?.verified) return null;
    const now = this.clock.now();
    const moved = await this.c.passkeys.updateOne(
      { _id: doc._id, counter: doc.counter },
      { $set: { counter: verified.authenticationInfo.newCounter, last_used_at: now } },
    );
    return moved.matchedCount === 1
      ? { ...doc, counter: verified.authenticationInfo.newCounter, last_used_at: now }
      : null;
  }

  private credentials(account: AccountBase): Promise<PasskeyDoc[]> {
    return account.passkey_ids.length === 0
      ? Promise.resolve([])
      : this.c.passkeys.find({ _id: { $in: account.passkey_ids } }).toArray();
  }
}

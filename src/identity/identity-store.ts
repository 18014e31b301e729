import type { Collection, Db } from 'mongodb';
import type { PortalRole } from './portal-roles';
import type { Realm } from './realm-names';
import type { Role } from './roles';

// A person who signs in, in either realm: the password, the second factors, the status. Passkeys,
// one-time links and service accounts' tokens are documents of their own, each read by `_id`.
export interface AccountBase {
  _id: string; // acc-<hex>
  // Absent on a manager's account (every account made before the portal is one); 'portal' on a partner's.
  realm?: Realm;
  email: string; // lower case; claimed in account_claims; indexed (email_created_at) for sign-in
  name: string;
  role: Role | PortalRole;
  status: 'invited' | 'active' | 'disabled';
  password_hash: string | null;
  // The TOTP secret (encrypted with the PII keyring) and the last step used, so a code works once.
  totp: { secret_enc: string; last_step: number | null } | null;
  passkey_ids: string[];
  created_at: Date;
  created_by: string;
  updated_at: Date;
  last_sign_in_at: Date | null;
}

// A manager's account: the console and the manager API.
export interface AccountDoc extends AccountBase {
  realm?: 'manager';
  role: Role;
  partner_ids: string[]; // an affiliate manager's partners
  // The agent record a person with role agent works as (absent on accounts made before agents signed in).
  agent_id?: string | null;
  // Made at a first single sign-on: the provider and its subject (account_sso holds the claim).
  sso: { issuer: string; subject: string } | null;
}

// A partner's person: the partner portal only, for one partner.
export interface PortalAccountDoc extends AccountBase {
  realm: 'portal';
  role: PortalRole;
  partner_id: string;
  // The IANA time zone the person reads the portal in (their own setting; absent or null: their partner's).
  time_zone?: string | null;
}

export const realmOf = (doc: Pick<AccountBase, 'realm'>): Realm => doc.realm ?? 'manager';

// A unique claim that points at an account: an email address, or an SSO issuer and subject. The
// `_id` is the fence: two accounts cannot claim one.
export interface AccountClaimDoc {
  _id: string;
  account_id: string;
}

// A one-time invitation or password-reset link; `_id` is the SHA-256 of its token, never the token.
export interface AccountLinkDoc {
  _id: string;
  kind: 'invitation' | 'password_reset';
  account_id: string;
  created_at: Date;
  created_by: string;
  expires_at: Date;
  used_at: Date | null;
}

export interface PasskeyDoc {
  _id: string; // the credential id, base64url
  account_id: string;
  public_key: string; // base64url COSE key
  counter: number;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

// A machine's credential: a role, an expiry, revocable. `_id` is the SHA-256 of the token.
export interface ServiceTokenDoc {
  _id: string;
  id: string; // sa-<hex>: what lists, the audit log and revocation name
  name: string;
  role: Role;
  partner_ids: string[];
  prefix: string; // the token's first characters, shown so a leaked token can be recognised
  created_at: Date;
  created_by: string;
  expires_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface IdentityCollections {
  accounts: Collection<AccountDoc>;
  accountClaims: Collection<AccountClaimDoc>;
  links: Collection<AccountLinkDoc>;
  passkeys: Collection<PasskeyDoc>;
  serviceTokens: Collection<ServiceTokenDoc>;
  // service account id → token hash, so a token is revoked by the id lists show.
  serviceTokenIds: Collection<AccountClaimDoc>;
}

export function identityCollections(db: Db): IdentityCollections {
  return {
    accounts: db.collection('accounts'),
    accountClaims: db.collection('account_claims'),
    links: db.collection('account_links'),
    passkeys: db.collection('passkeys'),
    serviceTokens: db.collection('service_tokens'),
    serviceTokenIds: db.collection('service_token_ids'),
  };
}

// Each realm claims emails apart: a partner's person may have the email of a manager's account.
export const emailClaim = (email: string, realm: Realm = 'manager'): string =>
  `${realm === 'manager' ? 'email' : `${realm}-email`}:${email.toLowerCase()}`;
export const ssoClaim = (issuer: string, subject: string): string => `sso:${issuer}|${subject}`;

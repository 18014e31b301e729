import type { Collection, Db } from 'mongodb';
import type { Role } from '../../shared/identity/roles';

// People who sign in to the console. Passkeys, one-time links and service accounts' tokens are
// documents of their own, each read by `_id`.
export interface AccountDoc {
  _id: string; // acc-<hex>
  email: string; // lower case; claimed in account_emails
  name: string;
  role: Role;
  partner_ids: string[]; // an affiliate manager's partners
  // The agent record a person with role agent works as (absent on accounts made before agents signed in).
  agent_id?: string | null;
  status: 'invited' | 'active' | 'disabled';
  password_hash: string | null;
  // The TOTP secret (encrypted with the PII keyring) and the last step used, so a code works once.
  totp: { secret_enc: string; last_step: number | null } | null;
  passkey_ids: string[];
  // Made at a first single sign-on: the provider and its subject (account_sso holds the claim).
  sso: { issuer: string; subject: string } | null;
  created_at: Date;
  created_by: string;
  updated_at: Date;
  last_sign_in_at: Date | null;
}

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

export const emailClaim = (email: string): string => `email:${email.toLowerCase()}`;
export const ssoClaim = (issuer: string, subject: string): string => `sso:${issuer}|${subject}`;

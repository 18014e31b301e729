import { randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock';
import { isDuplicateKey } from '../../shared/mongo/client';
import { emailClaim, ssoClaim, type AccountDoc, type IdentityCollections } from './identity-store';
import type { Role } from '../../shared/identity/roles';

export interface NewAccount {
  email: string;
  name: string;
  role: Role;
  partner_ids: string[];
  agent_id?: string | null;
}

export type AccountPatch = Partial<Pick<AccountDoc, 'name' | 'role' | 'partner_ids' | 'status' | 'agent_id'>>;

export type AccountView = Omit<AccountDoc, '_id' | 'password_hash' | 'totp' | 'passkey_ids'> & {
  id: string;
  second_factors: { totp: boolean; passkeys: number };
};

export function accountView(doc: AccountDoc): AccountView {
  const { _id, password_hash: _p, totp, passkey_ids, ...rest } = doc;
  return { id: _id, ...rest, agent_id: rest.agent_id ?? null, second_factors: { totp: totp !== null, passkeys: passkey_ids.length } };
}

export const normalEmail = (email: string): string => email.trim().toLowerCase();

// Accounts as the store keeps them: each read by `_id` (an email or an SSO subject is a claim
// document whose `_id` names it, pointing at the account). Writes that must not cross another are
// conditional on what was read.
export class AccountStore {
  constructor(private readonly c: IdentityCollections, private readonly clock: Clock) {}

  find(id: string): Promise<AccountDoc | null> {
    return this.c.accounts.findOne({ _id: id });
  }

  async byEmail(email: string): Promise<AccountDoc | null> {
    const claim = await this.c.accountClaims.findOne({ _id: emailClaim(normalEmail(email)) });
    return claim ? this.find(claim.account_id) : null;
  }

  async bySso(issuer: string, subject: string): Promise<AccountDoc | null> {
    const claim = await this.c.accountClaims.findOne({ _id: ssoClaim(issuer, subject) });
    return claim ? this.find(claim.account_id) : null;
  }

  // The account list: a few hundred people at most, read in `_id` order.
  list(): Promise<AccountDoc[]> {
    return this.c.accounts.find({}).sort({ _id: 1 }).limit(5000).toArray();
  }

  // A new account, invited (no password yet), or null when the email is taken. The claim is written
  // first: a crash between the two leaves a claim without an account, which the next invitation of
  // that email takes over.
  async create(a: NewAccount, by: string, sso: AccountDoc['sso'] = null): Promise<AccountDoc | null> {
    const now = this.clock.now();
    const doc: AccountDoc = {
      _id: `acc-${randomBytes(8).toString('hex')}`,
      email: normalEmail(a.email), name: a.name, role: a.role, partner_ids: a.partner_ids, agent_id: a.agent_id ?? null,
      status: sso ? 'active' : 'invited', password_hash: null, totp: null, passkey_ids: [], sso,
      created_at: now, created_by: by, updated_at: now, last_sign_in_at: null,
    };
    const claimId = sso ? ssoClaim(sso.issuer, sso.subject) : emailClaim(doc.email);
    if (!(await this.claim(claimId, doc._id))) return null;
    await this.c.accounts.insertOne(doc);
    return doc;
  }

  async update(id: string, patch: AccountPatch & Partial<Pick<AccountDoc, 'password_hash' | 'totp' | 'passkey_ids' | 'last_sign_in_at'>>): Promise<AccountDoc | null> {
    return this.c.accounts.findOneAndUpdate({ _id: id }, { $set: { ...patch, updated_at: this.clock.now() } }, { returnDocument: 'after' });
  }

  // A TOTP step used, only if no later one was: two requests with one code cannot both pass.
  async useTotpStep(id: string, previous: number | null, step: number): Promise<boolean> {
    const r = await this.c.accounts.updateOne({ _id: id, 'totp.last_step': previous }, { $set: { 'totp.last_step': step } });
    return r.modifiedCount === 1;
  }

  private async claim(claimId: string, accountId: string): Promise<boolean> {
    try {
      await this.c.accountClaims.insertOne({ _id: claimId, account_id: accountId });
      return true;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const held = await this.c.accountClaims.findOne({ _id: claimId });
      if (!held || (await this.find(held.account_id))) return false;
      const taken = await this.c.accountClaims.updateOne({ _id: claimId, account_id: held.account_id }, { $set: { account_id: accountId } });
      return taken.modifiedCount === 1;
    }
  }
}

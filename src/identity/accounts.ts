import { randomBytes } from 'node:crypto';
import type { Collection, Filter } from 'mongodb';
import type { Clock } from '../shared/clock';
import { isDuplicateKey } from '../shared/mongo/client';
import type { Realm } from './realm-names';
import {
  emailClaim,
  realmOf,
  ssoClaim,
  type AccountBase,
  type AccountDoc,
  type IdentityCollections,
} from './identity-store';
import type { Role } from './roles';

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
  return {
    id: _id,
    ...rest,
    agent_id: rest.agent_id ?? null,
    second_factors: { totp: totp !== null, passkeys: passkey_ids.length },
  };
}

export const normalEmail = (email: string): string => email.trim().toLowerCase();

// What a new account of a realm is made of; the store adds the rest (an invited account, no password).
export type NewAccountOf<A extends AccountBase> = Omit<
  A,
  | '_id'
  | 'realm'
  | 'status'
  | 'password_hash'
  | 'totp'
  | 'passkey_ids'
  | 'created_at'
  | 'created_by'
  | 'updated_at'
  | 'last_sign_in_at'
>;

// What the store may change of an account besides its realm's own fields.
type CommonPatch = Partial<
  Pick<AccountBase, 'name' | 'status' | 'password_hash' | 'totp' | 'passkey_ids' | 'last_sign_in_at'>
>;

// Accounts of one realm as the store keeps them: each read by `_id` (an email or an SSO subject is a
// claim document whose `_id` names it, pointing at the account), or for a sign-in by the email index.
// Another realm's account is unknown
// here, as if it did not exist. Writes that must not cross another are conditional on what was read.
export class AccountStore<A extends AccountBase = AccountDoc> {
  private readonly accounts: Collection<A>;
  // Manager accounts carry no realm (they were all made before there was another).
  private readonly mine: Filter<AccountBase>;

  constructor(
    private readonly c: IdentityCollections,
    private readonly clock: Clock,
    readonly realm: Realm = 'manager',
  ) {
    this.accounts = c.accounts as unknown as Collection<A>;
    this.mine = realm === 'manager' ? { realm: { $exists: false } } : { realm };
  }

  async find(id: string): Promise<A | null> {
    const doc = await this.accounts.findOne({ _id: id } as Filter<A>);
    return doc && realmOf(doc) === this.realm ? (doc as A) : null;
  }

  async byEmail(email: string): Promise<A | null> {
    const claim = await this.c.accountClaims.findOne({ _id: emailClaim(normalEmail(email), this.realm) });
    return claim ? this.find(claim.account_id) : null;
  }

  // The accounts a sign-in with an email may open, at most `max`: the one that claimed it (whatever its
  // status, so a disabled one still answers as disabled), then the realm's other active accounts with it,
  // oldest first, read by the email index.
  async signInCandidates(email: string, max: number): Promise<A[]> {
    const claimed = await this.byEmail(email);
    const active = await this.accounts
      .find({ email: normalEmail(email), status: 'active', ...this.mine } as Filter<A>)
      .sort({ email: 1, created_at: 1 })
      .limit(max + 1)
      .toArray();
    const others = (active as A[]).filter((a) => a._id !== claimed?._id);
    return (claimed ? [claimed, ...others] : others).slice(0, max);
  }

  async bySso(issuer: string, subject: string): Promise<A | null> {
    const claim = await this.c.accountClaims.findOne({ _id: ssoClaim(issuer, subject) });
    return claim ? this.find(claim.account_id) : null;
  }

  // The realm's accounts (those matching `filter`): a few hundred people at most, read in `_id` order.
  list(filter: Filter<A> = {}): Promise<A[]> {
    return this.accounts
      .find({ ...filter, ...this.mine } as Filter<A>)
      .sort({ _id: 1 })
      .limit(5000)
      .toArray() as Promise<A[]>;
  }

  // A new account, invited (no password yet; active when single sign-on made it), or null when the
  // email is taken in this realm. The claim is written first: a crash between the two leaves a claim
  // without an account, which the next invitation of that email takes over.
  async create(a: NewAccountOf<A>, by: string): Promise<A | null> {
    const doc = this.build(a, by);
    const sso = (a as { sso?: AccountDoc['sso'] }).sso ?? null;
    const claimId = sso ? ssoClaim(sso.issuer, sso.subject) : emailClaim(doc.email, this.realm);
    if (!(await this.claim(claimId, doc._id))) return null;
    await this.accounts.insertOne(doc as Parameters<Collection<A>['insertOne']>[0]);
    return doc;
  }

  // A new invited account that does not claim its email: another account claimed it (a sign-in tries that
  // one first).
  async createUnclaimed(a: NewAccountOf<A>, by: string): Promise<A> {
    const doc = this.build(a, by);
    await this.accounts.insertOne(doc as Parameters<Collection<A>['insertOne']>[0]);
    return doc;
  }

  // The account that claimed an email gives it up (only if it still holds it).
  async releaseEmail(email: string, holder: string): Promise<boolean> {
    const r = await this.c.accountClaims.deleteOne({
      _id: emailClaim(normalEmail(email), this.realm),
      account_id: holder,
    });
    return r.deletedCount === 1;
  }

  // An account of this realm claims its email, if no other account holds it.
  claimEmail(account: A): Promise<boolean> {
    return this.claim(emailClaim(account.email, this.realm), account._id);
  }

  private build(a: NewAccountOf<A>, by: string): A {
    const now = this.clock.now();
    const sso = (a as { sso?: AccountDoc['sso'] }).sso ?? null;
    return {
      _id: `acc-${randomBytes(8).toString('hex')}`,
      ...(this.realm === 'manager' ? {} : { realm: this.realm }),
      ...a,
      email: normalEmail(a.email),
      status: sso ? 'active' : 'invited',
      password_hash: null,
      totp: null,
      passkey_ids: [],
      created_at: now,
      created_by: by,
      updated_at: now,
      last_sign_in_at: null,
    } as unknown as A;
  }

  async update(id: string, patch: CommonPatch | Partial<A>): Promise<A | null> {
    const updated = await this.accounts.findOneAndUpdate(
      { _id: id, ...this.mine } as Filter<A>,
      { $set: { ...patch, updated_at: this.clock.now() } as Partial<A> },
      { returnDocument: 'after' },
    );
    return updated as A | null;
  }

  // An account's second factors gone (an owner's or admin's reset): its TOTP, and its passkeys, which
  // the account stops listing before their documents go.
  async clearSecondFactors(id: string): Promise<A | null> {
    const updated = await this.update(id, { totp: null, passkey_ids: [] });
    if (updated) await this.c.passkeys.deleteMany({ account_id: id });
    return updated;
  }

  // A TOTP step used, only if no later one was: two requests with one code cannot both pass.
  async useTotpStep(id: string, previous: number | null, step: number): Promise<boolean> {
    const r = await this.c.accounts.updateOne(
      { _id: id, 'totp.last_step': previous },
      { $set: { 'totp.last_step': step } },
    );
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
      const taken = await this.c.accountClaims.updateOne(
        { _id: claimId, account_id: held.account_id },
        { $set: { account_id: accountId } },
      );
      return taken.modifiedCount === 1;
    }
  }
}

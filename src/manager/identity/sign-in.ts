import type { AuditActor } from '../../shared/audit';
import type { Clock } from '../../shared/clock';
import type { PiiCipher } from '../../shared/crypto/pii-cipher';
import { ApiError } from '../../shared/errors';
import type { AuditLog } from '../audit-log';
import type { AccountStore } from './accounts';
import type { AccountBase } from './identity-store';
import { verifyPassword } from './passwords';
import { auditAccount, type IdentityRealm } from './realm';
import type { SignInThrottle } from './sign-in-throttle';
import { totpStep } from './totp';

// What follows a right password: a second factor, or setting one up when the account has none.
export type PasswordOutcome<A extends AccountBase> = { account: A; stage: 'second_factor' | 'enroll' };

export interface SignInDeps<A extends AccountBase> {
  realm: IdentityRealm<A>;
  accounts: AccountStore<A>;
  throttle: SignInThrottle;
  cipher: PiiCipher;
  audit: AuditLog;
  clock: Clock;
}

const anonymous = (address: string, method: AuditActor['method'] = 'password'): AuditActor => ({
  id: 'anonymous',
  name: 'anonymous',
  method,
  address,
});

// The password and second-factor steps of a sign-in to one realm. A wrong email and a wrong password
// get the same answer after the same work (the password is verified against a decoy hash), and so
// does an email of the other realm's account; past the throttle's limits nothing is verified at all.
export class SignIn<A extends AccountBase> {
  constructor(private readonly d: SignInDeps<A>) {}

  async password(email: string, password: string, address: string): Promise<PasswordOutcome<A>> {
    const throttled = await this.d.throttle.check(email, address);
    if (throttled.locked)
      throw new ApiError(
        'sign_in_throttled',
        { seconds: throttled.retryAfterS },
        { 'retry-after': String(throttled.retryAfterS) },
      );
    const account = await this.d.accounts.byEmail(email);
    const ok = await verifyPassword(account?.password_hash ?? null, password);
    if (!ok || !account) {
      await this.failed(email, address, account, 'password');
      throw new ApiError('invalid_credentials');
    }
    if (account.status !== 'active') {
      await auditAccount(this.d.audit, this.d.realm, anonymous(address), 'sign_in_failed', account, {
        reason: 'disabled',
      });
      throw new ApiError('account_disabled');
    }
    const refused = await this.d.realm.refusal?.(account);
    if (refused) {
      await auditAccount(this.d.audit, this.d.realm, anonymous(address), 'sign_in_failed', account, {
        reason: refused,
      });
      throw new ApiError(refused);
    }
    await this.d.throttle.succeed(email);
    const hasFactor = account.totp !== null || account.passkey_ids.length > 0;
    return { account, stage: hasFactor ? 'second_factor' : 'enroll' };
  }

  // A TOTP code for an account past its password step: each code works once.
  async totp(account: A, code: string, address: string): Promise<void> {
    const totp = account.totp;
    const step = totp
      ? totpStep(this.d.cipher.decrypt(totp.secret_enc), code, totp.last_step, this.d.clock.now().getTime())
      : null;
    if (!totp || step === null || !(await this.d.accounts.useTotpStep(account._id, totp.last_step, step))) {
      await this.failed(account.email, address, account, 'totp');
      throw new ApiError('second_factor_invalid');
    }
  }

  // A passkey's answer for an account past its password step: one that does not verify counts in
  // the throttle like a wrong code.
  async passkey<T>(account: A, verify: () => Promise<T | null>, address: string): Promise<T> {
    const verified = await verify();
    if (verified === null) {
      await this.failed(account.email, address, account, 'passkey');
      throw new ApiError('second_factor_invalid');
    }
    return verified;
  }

  private async failed(email: string, address: string, account: A | null, step: string): Promise<void> {
    const locked = await this.d.throttle.fail(email, address);
    await auditAccount(this.d.audit, this.d.realm, anonymous(address), 'sign_in_failed', account, { step });
    for (const limit of locked)
      await auditAccount(this.d.audit, this.d.realm, anonymous(address), 'locked', account, { step, limit });
  }
}

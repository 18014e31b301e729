import type { AuditActor } from '../../shared/audit';
import type { Clock } from '../../shared/clock';
import type { PiiCipher } from '../../shared/crypto/pii-cipher';
import { ApiError } from '../../shared/errors';
import type { AuditLog } from '../audit-log';
import type { AccountStore } from './accounts';
import type { AccountDoc } from './identity-store';
import { verifyPassword } from './passwords';
import type { SignInThrottle } from './sign-in-throttle';
import { totpStep } from './totp';

// What follows a right password: a second factor, or setting one up when the account has none.
export type PasswordOutcome = { account: AccountDoc; stage: 'second_factor' | 'enroll' };

export interface SignInDeps {
  accounts: AccountStore;
  throttle: SignInThrottle;
  cipher: PiiCipher;
  audit: AuditLog;
  clock: Clock;
}

const anonymous = (address: string, method: AuditActor['method'] = 'password'): AuditActor => ({ id: 'anonymous', name: 'anonymous', method, address });

// The password and second-factor steps of a sign-in. A wrong email and a wrong password get the same answer
// after the same work (the password is verified against a decoy hash); past the throttle's limits
// nothing is verified at all.
export class SignIn {
  constructor(private readonly d: SignInDeps) {}

  async password(email: string, password: string, address: string): Promise<PasswordOutcome> {
    const throttled = await this.d.throttle.check(email, address);
    if (throttled.locked) throw new ApiError('sign_in_throttled', { seconds: throttled.retryAfterS }, { 'retry-after': String(throttled.retryAfterS) });
    const account = await this.d.accounts.byEmail(email);
    const ok = await verifyPassword(account?.password_hash ?? null, password);
    if (!ok || !account) {
      await this.failed(email, address, account, 'password');
      throw new ApiError('invalid_credentials');
    }
    if (account.status !== 'active') {
      await this.d.audit.record(anonymous(address), 'account.sign_in_failed', { target: account._id, details: { reason: 'disabled' } });
      throw new ApiError('account_disabled');
    }
    await this.d.throttle.succeed(email);
    const hasFactor = account.totp !== null || account.passkey_ids.length > 0;
    return { account, stage: hasFactor ? 'second_factor' : 'enroll' };
  }

  // A TOTP code for an account past its password step: each code works once.
  async totp(account: AccountDoc, code: string, address: string): Promise<void> {
    const totp = account.totp;
    const step = totp ? totpStep(this.d.cipher.decrypt(totp.secret_enc), code, totp.last_step, this.d.clock.now().getTime()) : null;
    if (!totp || step === null || !(await this.d.accounts.useTotpStep(account._id, totp.last_step, step))) {
      await this.failed(account.email, address, account, 'totp');
      throw new ApiError('second_factor_invalid');
    }
  }

  // A passkey's answer for an account past its password step: one that does not verify counts in
  // the throttle like a wrong code.
  async passkey<T>(account: AccountDoc, verify: () => Promise<T | null>, address: string): Promise<T> {
    const verified = await verify();
    if (verified === null) {
      await this.failed(account.email, address, account, 'passkey');
      throw new ApiError('second_factor_invalid');
    }
    return verified;
  }

  private async failed(email: string, address: string, account: AccountDoc | null, step: string): Promise<void> {
    const locked = await this.d.throttle.fail(email, address);
    const target = account?._id ?? null;
    await this.d.audit.record(anonymous(address), 'account.sign_in_failed', { target, details: { step } });
    if (locked) await this.d.audit.record(anonymous(address), 'account.locked', { target, details: { step } });
  }
}

import type { AuditActor } from '../shared/audit';
import type { Clock } from '../shared/clock';
import type { SignInLimits } from '../shared/config';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import { ApiError } from '../shared/errors';
import type { AuditRecorder } from '../shared/audit';
import type { AccountStore } from './accounts';
import type { DeviceCookies } from './device-cookie';
import type { AccountBase } from './identity-store';
import { verifyPassword } from './passwords';
import { auditAccount, type IdentityRealm } from './realm';
import type { SessionStage } from './session-state';
import type { SignInThrottle } from './sign-in-throttle';
import { pendingOpen } from './throttle-policy';
import { totpStep } from './totp';

// What follows a right password: a second factor, or setting one up when the account has none.
export type PasswordOutcome<A extends AccountBase> = { account: A; stage: 'second_factor' | 'enroll' };

// Where an attempt comes from: the client's address and the device cookie its browser sent, if any.
export interface Attempt {
  address: string;
  device: string | undefined;
}

// The pending sign-in a second factor is for (its session): wrong answers are counted in it, and past
// the limit it has no stage left.
export interface Pending {
  stage?: SessionStage;
  factor_failures?: number;
}

// What a verification found: whether it was right, and the account it was about (if any).
export interface Verified<A extends AccountBase> {
  right: boolean;
  account: A | null;
  // Every account a wrong answer was tried against, when more than `account`: each is audited.
  tried?: A[];
}

export interface SignInDeps<A extends AccountBase> {
  realm: IdentityRealm<A>;
  accounts: AccountStore<A>;
  throttle: SignInThrottle;
  devices: DeviceCookies;
  limits: SignInLimits;
  cipher: PiiCipher;
  audit: AuditRecorder;
  clock: Clock;
}

const anonymous = (address: string, method: AuditActor['method'] = 'password'): AuditActor => ({
  id: 'anonymous',
  name: 'anonymous',
  method,
  address,
});

// The password and second-factor steps of a sign-in to one realm. Every step asks the throttle first
// and verifies nothing past its limits; a right step gives back its own charge, and only a completed
// sign-in clears a count. A wrong email and a wrong password get the same answer after the same work
// (the password is verified against decoy hashes), and so does an email of the other realm's account;
// an email several accounts use answers as one account's does.
export class SignIn<A extends AccountBase> {
  constructor(private readonly d: SignInDeps<A>) {}

  async password(email: string, password: string, attempt: Attempt): Promise<PasswordOutcome<A>> {
    const account = await this.checked(email, attempt, 'password', () => this.opened(email, password));
    if (!account) throw new ApiError('invalid_credentials');
    if (account.status !== 'active') {
      await auditAccount(this.d.audit, this.d.realm, anonymous(attempt.address), 'sign_in_failed', account, {
        reason: 'disabled',
      });
      throw new ApiError('account_disabled');
    }
    const refused = await this.d.realm.refusal?.(account);
    if (refused) {
      await auditAccount(this.d.audit, this.d.realm, anonymous(attempt.address), 'sign_in_failed', account, {
        reason: refused,
      });
      throw new ApiError(refused);
    }
    const hasFactor = account.totp !== null || account.passkey_ids.length > 0;
    return { account, stage: hasFactor ? 'second_factor' : 'enroll' };
  }

  // The account a password opens among those an email may sign in to (the claimed one first, then the
  // oldest). The password is verified in parallel against as many hashes as the realm allows accounts per
  // email, decoys filling the rest, so neither the answer nor the work tells how many accounts hold it.
  private async opened(email: string, password: string): Promise<Verified<A>> {
    const max = this.d.realm.accountsPerEmail;
    const found = await this.d.accounts.signInCandidates(email, max);
    const hashes = Array.from({ length: max }, (_, i) => found[i]?.password_hash ?? null);
    const right = await Promise.all(hashes.map((hash) => verifyPassword(hash, password)));
    const opened = found.find((_, i) => right[i]);
    return opened ? { right: true, account: opened } : { right: false, account: found[0] ?? null, tried: found };
  }

  // The current password of a signed-in person who changes their password or second factors: throttled
  // and counted as a sign-in's is.
  async currentPassword(account: A, password: string, attempt: Attempt, step: string): Promise<void> {
    const right = async () => ({ right: await verifyPassword(account.password_hash, password), account });
    if (!(await this.checked(account.email, attempt, step, right))) throw new ApiError('invalid_credentials');
  }

  // A TOTP code for an account past its password step: each code works once.
  async totp(account: A, code: string, attempt: Attempt, pending: Pending): Promise<void> {
    const right = async () => ({ right: await this.totpRight(account, code), account });
    if (!(await this.checked(account.email, attempt, 'totp', right))) this.wrongFactor(pending);
  }

  // A passkey's answer for an account past its password step: one that does not verify counts like a
  // wrong code.
  async passkey<T>(account: A, verify: () => Promise<T | null>, attempt: Attempt, pending: Pending): Promise<T> {
    let verified: T | null = null;
    await this.checked(account.email, attempt, 'passkey', async () => {
      verified = await verify();
      return { right: verified !== null, account };
    });
    return verified ?? this.wrongFactor(pending);
  }

  // The sign-in completed: this network's and this device's failures start again, and the browser gets
  // a new device cookie.
  async completed(account: A, attempt: Attempt): Promise<string> {
    await this.d.throttle.succeed(account.email, attempt.address, this.nonce(account.email, attempt));
    return this.d.devices.issue(account.email);
  }

  get deviceMaxAgeS(): number {
    return this.d.limits.deviceDays * 86400;
  }

  // Whether a TOTP code is the account's, spending its step.
  async totpRight(account: A, code: string): Promise<boolean> {
    const totp = account.totp;
    const step = totp
      ? totpStep(this.d.cipher.decrypt(totp.secret_enc), code, totp.last_step, this.d.clock.now().getTime())
      : null;
    return !!totp && step !== null && (await this.d.accounts.useTotpStep(account._id, totp.last_step, step));
  }

  // One verification under the throttle: 429 sign_in_throttled, unverified, past its limits; counted as
  // a failure while it runs, given back when right. A wrong one is audited, and each limit it reached.
  // The account when right, else null.
  async checked(email: string, attempt: Attempt, step: string, verify: () => Promise<Verified<A>>): Promise<A | null> {
    const admission = await this.admission(email, attempt);
    const { right, account, tried } = await verify();
    if (right) {
      await this.d.throttle.refund(admission.charge);
      return account;
    }
    const actor = anonymous(attempt.address);
    for (const about of tried?.length ? tried : [account]) {
      await auditAccount(this.d.audit, this.d.realm, actor, 'sign_in_failed', about, { step });
      for (const limit of admission.reachedIfWrong)
        await auditAccount(this.d.audit, this.d.realm, actor, 'locked', about, { step, limit });
    }
    return null;
  }

  // A step that guesses no secret of the account's (a one-time link, found already) but starts a sign-in:
  // held back as the others are, 429 sign_in_throttled past the limits, and counted as nothing.
  async admitted(email: string, attempt: Attempt): Promise<void> {
    await this.d.throttle.refund((await this.admission(email, attempt)).charge);
  }

  private async admission(email: string, attempt: Attempt) {
    const admission = await this.d.throttle.admit(email, attempt.address, this.nonce(email, attempt));
    if (!admission.admitted)
      throw new ApiError(
        'sign_in_throttled',
        { seconds: admission.retryAfterS },
        { 'retry-after': String(admission.retryAfterS) },
      );
    return admission;
  }

  // A wrong second factor: past the limit the pending sign-in has no stage left.
  private wrongFactor(pending: Pending): never {
    pending.factor_failures = (pending.factor_failures ?? 0) + 1;
    if (!pendingOpen(pending.factor_failures, this.d.limits)) pending.stage = undefined;
    throw new ApiError('second_factor_invalid');
  }

  private nonce(email: string, attempt: Attempt): string | null {
    return this.d.devices.nonceOf(attempt.device, email);
  }
}

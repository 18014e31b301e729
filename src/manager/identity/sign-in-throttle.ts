import { createHash } from 'node:crypto';
import type { Redis } from '../../shared/redis/client';
import { clientNetwork } from '../../shared/net/client-network';

// Failed sign-ins, counted per account (by the email typed, whether or not it names an account, so
// the answer tells nobody which emails exist) and per client address, in fixed windows. Past either
// limit the next attempts are refused without checking the password until the window ends (OWASP
// Authentication Cheat Sheet: throttle per account and per source).
export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { perAccount: 5, perAddress: 50, windowMs: 15 * 60 * 1000 };

export interface ThrottleState {
  locked: boolean;
  retryAfterS: number;
}

export class SignInThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
  ) {}

  async check(email: string, address: string): Promise<ThrottleState> {
    const keys = this.keys(email, address);
    const [account, byAddress] = await this.redis.mget(keys.account, keys.address);
    const locked = Number(account ?? 0) >= this.limits.perAccount || Number(byAddress ?? 0) >= this.limits.perAddress;
    if (!locked) return { locked: false, retryAfterS: 0 };
    const ttls = await Promise.all([this.redis.pttl(keys.account), this.redis.pttl(keys.address)]);
    return { locked: true, retryAfterS: Math.max(1, Math.ceil(Math.max(...ttls) / 1000)) };
  }

  // Counts a failure; the limits this one reached (each worth an audit entry).
  async fail(email: string, address: string): Promise<('account' | 'address')[]> {
    const keys = this.keys(email, address);
    const window = String(this.limits.windowMs);
    const results = await this.redis
      .multi()
      .set(keys.account, '0', 'PX', window, 'NX')
      .incr(keys.account)
      .set(keys.address, '0', 'PX', window, 'NX')
      .incr(keys.address)
      .exec();
    const reached = (at: number, limit: number) => Number(results?.[at]?.[1] ?? 0) === limit;
    return [
      ...(reached(1, this.limits.perAccount) ? (['account'] as const) : []),
      ...(reached(3, this.limits.perAddress) ? (['address'] as const) : []),
    ];
  }

  async succeed(email: string): Promise<void> {
    await this.redis.del(this.keys(email, '').account);
  }

  private keys(email: string, address: string): { account: string; address: string } {
    const digest = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
    return { account: `signin-fail:acct:${digest}`, address: `signin-fail:addr:${clientNetwork(address)}` };
  }
}

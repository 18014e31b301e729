import type { Redis } from '../../shared/redis/client';
import { clientNetwork } from '../../shared/net/client-network';

// Bearer tokens that name nothing, counted per client network in fixed windows: past the limit every
// bearer token from there is refused unchecked until the window ends, so tokens cannot be guessed at speed.
export interface TokenThrottleLimits {
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_TOKEN_THROTTLE: TokenThrottleLimits = { perAddress: 20, windowMs: 15 * 60 * 1000 };

export class TokenThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly limits: TokenThrottleLimits = DEFAULT_TOKEN_THROTTLE,
  ) {}

  // Seconds until the address may try again; 0 when it may now.
  async wait(address: string): Promise<number> {
    const key = this.key(address);
    if (Number((await this.redis.get(key)) ?? 0) < this.limits.perAddress) return 0;
    return Math.max(1, Math.ceil((await this.redis.pttl(key)) / 1000));
  }

  async fail(address: string): Promise<void> {
    const key = this.key(address);
    await this.redis.multi().set(key, '0', 'PX', String(this.limits.windowMs), 'NX').incr(key).exec();
  }

  private key(address: string): string {
    return `token-fail:addr:${clientNetwork(address)}`;
  }
}

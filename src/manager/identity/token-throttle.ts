import type { Redis } from '../../shared/redis/client';
import { clientNetwork } from '../../shared/net/client-network';

// Bearer tokens that name nothing, counted per client network in fixed 15-minute windows: past
// `perAddress` (TOKEN_FAILURES_PER_ADDRESS) every bearer token from there is refused unchecked until the
// window ends, so tokens cannot be guessed at speed.
const WINDOW_MS = 15 * 60 * 1000;

export class TokenThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly perAddress: number,
  ) {}

  // Seconds until the address may try again; 0 when it may now.
  async wait(address: string): Promise<number> {
    const key = this.key(address);
    if (Number((await this.redis.get(key)) ?? 0) < this.perAddress) return 0;
    return Math.max(1, Math.ceil((await this.redis.pttl(key)) / 1000));
  }

  async fail(address: string): Promise<void> {
    const key = this.key(address);
    await this.redis.multi().set(key, '0', 'PX', String(WINDOW_MS), 'NX').incr(key).exec();
  }

  private key(address: string): string {
    return `token-fail:addr:${clientNetwork(address)}`;
  }
}

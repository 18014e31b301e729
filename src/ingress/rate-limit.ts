import { clientNetwork } from '../shared/net/client-network';
import type { Redis } from '../shared/redis/client';
import type { LuaScript } from '../shared/redis/lua-script';
import { WINDOW_MS } from '../shared/partners/partner-quota';
import { windowTakeScript, windowVerdict, type Verdict } from '../shared/redis/sliding-window';

export { retryAfterSeconds, type Verdict } from '../shared/redis/sliding-window';

export { quotaFor, WINDOW_MS, type DefaultQuotas, type Endpoint } from '../shared/partners/partner-quota';

// Failed authentications (no or unknown API key) per client address, in a sliding 60-second
// window shared by every ingress instance through Redis (window-take.lua). An address at the limit is
// refused before its key is looked up, so guessing keys costs the database nothing; a known key's
// request is checked with its admission (admission.ts), in the same round trip as its rate limit.
export class AuthFailureLimiter {
  private readonly script: LuaScript;
  private seq = 0;

  constructor(
    redis: Redis,
    private readonly instanceId: string,
    private readonly perMinute: number,
  ) {
    this.script = windowTakeScript(redis);
  }

  admits(clientIp: string): Promise<Verdict> {
    return this.take(clientIp, false);
  }

  async recordFailure(clientIp: string): Promise<void> {
    await this.take(clientIp, true);
  }

  private async take(clientIp: string, record: boolean): Promise<Verdict> {
    const member = record ? `${this.instanceId}:${++this.seq}` : '';
    return windowVerdict(
      await this.script([authFailuresKey(clientIp)], [this.perMinute, WINDOW_MS, member]),
      WINDOW_MS,
    );
  }
}

// Failed authentications count per client network (an IPv6 client per /64).
export function authFailuresKey(clientIp: string): string {
  return `af:${clientNetwork(clientIp)}`;
}

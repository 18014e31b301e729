import { join } from 'node:path';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { Redis } from '../shared/redis/client';
import { luaScript, type LuaScript } from '../shared/redis/lua-script';
import { LUA_DIR } from './lua-dir';

export type Endpoint = 'intake' | 'status';

export const WINDOW_MS = 60_000;

export type Verdict = { allowed: true } | { allowed: false; retryAfterS: number };

export interface DefaultQuotas {
  intakePerMinute: number;
  statusPerMinute: number;
}

// Per partner, never per IP (spec 8); a manager may raise a partner's quota in partner.rate_limits.
export function quotaFor(partner: PartnerDoc, endpoint: Endpoint, defaults: DefaultQuotas): number {
  return endpoint === 'intake'
    ? partner.rate_limits?.intake_per_minute ?? defaults.intakePerMinute
    : partner.rate_limits?.status_per_minute ?? defaults.statusPerMinute;
}

// Retry-After is whole seconds (RFC 9110), rounded up so a client that waits exactly that long is let in.
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

// Sliding 60-second windows shared by every ingress instance through Redis (rate-limit.lua).
class SlidingWindows {
  private readonly script: LuaScript;
  private seq = 0;

  constructor(redis: Redis, private readonly instanceId: string) {
    this.script = luaScript(redis, 'leadIntakeRateLimit', join(LUA_DIR, 'rate-limit.lua'), 1);
  }

  // Records one request in the window when it fits, unless record is false (only ask).
  async take(window: string, limit: number, record = true): Promise<Verdict> {
    const member = record ? `${this.instanceId}:${++this.seq}` : '';
    const [allowed, retryMs] = (await this.script([window], [limit, WINDOW_MS, member])) as number[];
    return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterS: retryAfterSeconds(retryMs ?? WINDOW_MS) };
  }
}

// One window per partner and endpoint. No per-second sub-limit: a burst of parallel requests is
// fine while the window total holds.
export class RateLimiter {
  private readonly windows: SlidingWindows;

  constructor(redis: Redis, instanceId: string, private readonly defaults: DefaultQuotas) {
    this.windows = new SlidingWindows(redis, instanceId);
  }

  consume(partner: PartnerDoc, endpoint: Endpoint): Promise<Verdict> {
    return this.windows.take(`rl:${endpoint}:${partner._id}`, quotaFor(partner, endpoint, this.defaults));
  }
}

// Failed authentications (no or unknown API key) per client address: an address at the limit is
// refused before its key is looked up, so guessing keys costs the database nothing.
export class AuthFailureLimiter {
  private readonly windows: SlidingWindows;

  constructor(redis: Redis, instanceId: string, private readonly perMinute: number) {
    this.windows = new SlidingWindows(redis, instanceId);
  }

  admits(clientIp: string): Promise<Verdict> {
    return this.windows.take(`af:${clientIp}`, this.perMinute, false);
  }

  async recordFailure(clientIp: string): Promise<void> {
    await this.windows.take(`af:${clientIp}`, this.perMinute);
  }
}

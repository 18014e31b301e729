import { join } from 'node:path';
import type { Redis } from './client';
import { luaScript, type LuaScript } from './lua-script';

// The sliding-window log's Lua functions, put in front of every script that counts requests in one.
export const SLIDING_WINDOW_LUA = join(__dirname, 'sliding-window.lua');

export type Verdict = { allowed: true } | { allowed: false; retryAfterS: number };

// One place in one sliding window (window-take.lua): keys [window], args [limit, window ms, member ('' only asks)].
export function windowTakeScript(redis: Redis): LuaScript {
  return luaScript(redis, 'leadIntakeWindowTake', join(__dirname, 'window-take.lua'), 1, [SLIDING_WINDOW_LUA]);
}

// Retry-After is whole seconds (RFC 9110), rounded up so a client that waits exactly that long is let in.
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

// window-take.lua's { allowed, retry_after_ms } as a verdict.
export function windowVerdict(reply: unknown, windowMs: number): Verdict {
  const [allowed, retryMs] = reply as number[];
  return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterS: retryAfterSeconds(retryMs ?? windowMs) };
}

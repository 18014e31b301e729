import { join } from 'node:path';
import type { Redis } from '../shared/redis/client';
import { luaScript, type LuaScript } from '../shared/redis/lua-script';
import type { StoredOutcome } from './intake-result';
import { LUA_DIR } from './lua-dir';

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'taken_over' }
  | { kind: 'in_use' }
  | { kind: 'mismatch' }
  | { kind: 'done'; stored: StoredOutcome };

// 1 to 255 printable ASCII characters (headers are trimmed by the HTTP parser).
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x20-\x7e]{1,255}$/.test(key);
}

// Idempotency records in Redis, one per (partner, Idempotency-Key), shared by every ingress
// instance (idempotency-claim.lua, idempotency-settle.lua).
export class IdempotencyStore {
  private readonly claimScript: LuaScript;
  private readonly settleScript: LuaScript;

  constructor(redis: Redis, private readonly windowS: number, private readonly staleAfterMs: number) {
    this.claimScript = luaScript(redis, 'leadIntakeIdempotencyClaim', join(LUA_DIR, 'idempotency-claim.lua'), 1);
    this.settleScript = luaScript(redis, 'leadIntakeIdempotencySettle', join(LUA_DIR, 'idempotency-settle.lua'), 1);
  }

  async claim(partnerId: string, key: string, bodyHash: string): Promise<Claim> {
    const [kind, http, response] = (await this.claimScript([recordKey(partnerId, key)], [bodyHash, this.staleAfterMs, this.windowS])) as string[];
    if (kind === 'done') return { kind, stored: { http: Number(http), body: JSON.parse(response ?? '{}') as StoredOutcome['body'] } };
    if (kind === 'claimed' || kind === 'taken_over' || kind === 'in_use' || kind === 'mismatch') return { kind };
    throw new Error(`idempotency-claim.lua returned ${String(kind)}`);
  }

  async complete(partnerId: string, key: string, stored: StoredOutcome): Promise<void> {
    await this.settleScript([recordKey(partnerId, key)], ['done', stored.http, JSON.stringify(stored.body)]);
  }

  async release(partnerId: string, key: string): Promise<void> {
    await this.settleScript([recordKey(partnerId, key)], ['release']);
  }
}

function recordKey(partnerId: string, key: string): string {
  return `idem:${partnerId}:${key}`;
}

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

// An intake request's Idempotency-Key, the hash of its body and the claim its admission took.
export interface IntakeClaim {
  key: string;
  bodyHash: string;
  claim: Claim;
}

// 1 to 255 printable ASCII characters (headers are trimmed by the HTTP parser).
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x20-\x7e]{1,255}$/.test(key);
}

// The claim a script answered (idempotency-record.lua).
export function claimOf(reply: readonly string[]): Claim {
  const [kind, http, response] = reply;
  if (kind === 'done')
    return { kind, stored: { http: Number(http), body: JSON.parse(response ?? '{}') as StoredOutcome['body'] } };
  if (kind === 'claimed' || kind === 'taken_over' || kind === 'in_use' || kind === 'mismatch') return { kind };
  throw new Error(`an idempotency claim answered ${String(kind)}`);
}

// Idempotency records in Redis, one per (partner, Idempotency-Key), shared by every ingress
// instance: claimed with the request's admission (admission.lua), settled here (idempotency-settle.lua).
export class IdempotencyStore {
  private readonly settleScript: LuaScript;

  constructor(redis: Redis) {
    this.settleScript = luaScript(redis, 'leadIntakeIdempotencySettle', join(LUA_DIR, 'idempotency-settle.lua'), 1);
  }

  async complete(partnerId: string, key: string, stored: StoredOutcome): Promise<void> {
    await this.settleScript([recordKey(partnerId, key)], ['done', stored.http, JSON.stringify(stored.body)]);
  }

  async release(partnerId: string, key: string): Promise<void> {
    await this.settleScript([recordKey(partnerId, key)], ['release']);
  }
}

export function recordKey(partnerId: string, key: string): string {
  return `idem:${partnerId}:${key}`;
}

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { SignInLimits } from '../shared/config';
import type { Realm } from './realm-names';
import type { Redis } from '../shared/redis/client';
import { luaScript, type LuaScript } from '../shared/redis/lua-script';
import { clientNetwork } from '../shared/net/client-network';
import { limitsReached, retryAfterS, throttleVerdict, type SignInLimit } from './throttle-policy';

// The counters one attempt was charged on.
export interface Charge {
  counters: string[];
}

// An admitted attempt carries the limits it reaches if it turns out wrong.
export type Admission =
  { admitted: true; charge: Charge; reachedIfWrong: SignInLimit[] } | { admitted: false; retryAfterS: number };

// Failed sign-ins of one realm in Redis, in fixed windows: per account (by the email typed, whether or
// not it names an account, so the answer tells nobody which emails exist) and client network, per
// network, per account, and per device cookie; throttle-policy.ts decides what the counts allow. Each
// attempt is charged as a failure before anything is verified, so attempts racing each other see each
// other, and the charge is given back when the attempt is refused or right. In an account's slow-down,
// browsers it does not know take turns: one attempt per delay holds the account's slot (SET NX).
export class SignInThrottle {
  private readonly windowMs: string;
  private readonly refundScript: LuaScript;

  constructor(
    private readonly redis: Redis,
    private readonly realm: Realm,
    private readonly limits: SignInLimits,
  ) {
    this.windowMs = String(limits.windowS * 1000);
    this.refundScript = luaScript(redis, 'leadIntakeSignInRefund', join(__dirname, 'sign-in-refund.lua'), 4);
  }

  async admit(email: string, address: string, device: string | null): Promise<Admission> {
    const k = this.keys(email, address, device);
    const counters = [k.source, k.address, k.account, ...(k.device ? [k.device] : [])];
    const tx = this.redis.multi();
    for (const key of counters) tx.set(key, '0', 'PX', this.windowMs, 'NX').incr(key).pttl(key);
    const results = (await tx.exec()) ?? [];
    const after = counters.map((_, i) => Number(results[i * 3 + 1]?.[1] ?? 0));
    const ttl = counters.map((_, i) => Number(results[i * 3 + 2]?.[1] ?? 0));
    const [source, byAddress, account, byDevice] = after as [number, number, number, number | undefined];
    const verdict = throttleVerdict(
      {
        source: source - 1,
        address: byAddress - 1,
        account: account - 1,
        device: byDevice === undefined ? null : byDevice - 1,
        sourceTtlMs: ttl[0]!,
        addressTtlMs: ttl[1]!,
        deviceTtlMs: ttl[3] ?? 0,
      },
      this.limits,
    );
    const charge: Charge = { counters };
    let refused = verdict.kind === 'refuse' ? verdict.retryAfterS : null;
    if (verdict.kind === 'space' && (await this.redis.set(k.slot, '1', 'PX', verdict.delayMs, 'NX')) === null)
      refused = retryAfterS(await this.redis.pttl(k.slot));
    if (refused !== null) {
      await this.refund(charge);
      return { admitted: false, retryAfterS: refused };
    }
    const reachedIfWrong = limitsReached({ source, address: byAddress, device: byDevice ?? null }, this.limits);
    return { admitted: true, charge, reachedIfWrong };
  }

  // An attempt refused unverified, or right: its charge goes.
  async refund(charge: Charge): Promise<void> {
    const keys = [...charge.counters, charge.counters[0]!].slice(0, 4);
    await this.refundScript(keys, [charge.counters.length]);
  }

  // A completed sign-in: its network's failures for the account, and its device's, start again.
  async succeed(email: string, address: string, device: string | null): Promise<void> {
    const k = this.keys(email, address, device);
    await this.redis.del(k.source, ...(k.device ? [k.device] : []));
  }

  private keys(email: string, address: string, device: string | null) {
    const base = `signin-fail:${this.realm}`;
    const account = digest(email.trim().toLowerCase());
    const network = clientNetwork(address);
    return {
      source: `${base}:src:${account}:${network}`,
      address: `${base}:addr:${network}`,
      account: `${base}:acct:${account}`,
      slot: `${base}:slot:${account}`,
      device: device === null ? null : `${base}:dev:${digest(device)}`,
    };
  }
}

const digest = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 32);

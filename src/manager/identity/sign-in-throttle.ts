import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/clock';
import type { SignInLimits } from '../../shared/config';
import type { Realm } from '../../shared/identity/realms';
import type { Redis } from '../../shared/redis/client';
import { clientNetwork } from '../../shared/net/client-network';
import { lockedNow, throttleVerdict, type Verdict } from './throttle-policy';

// Failed sign-ins of one realm in Redis, in fixed windows: per account (by the email typed, whether or
// not it names an account, so the answer tells nobody which emails exist) and client network, per
// network, per account, and per device cookie. throttle-policy.ts decides what the counts allow.
export class SignInThrottle {
  private readonly windowMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly realm: Realm,
    private readonly limits: SignInLimits,
    private readonly clock: Clock,
  ) {
    this.windowMs = limits.windowS * 1000;
  }

  async check(email: string, address: string, device: string | null): Promise<Verdict> {
    const k = this.keys(email, address, device);
    const read = await this.redis
      .multi()
      .mget(k.source, k.address, k.account, k.last, k.device ?? k.source)
      .pttl(k.source)
      .pttl(k.address)
      .pttl(k.device ?? k.source)
      .exec();
    const [counts, sourceTtl, addressTtl, deviceTtl] = (read ?? []).map(([, v]) => v) as [
      (string | null)[],
      number,
      number,
      number,
    ];
    const [source, byAddress, account, last, byDevice] = counts.map((v) => Number(v ?? 0));
    return throttleVerdict(
      {
        source: source!,
        address: byAddress!,
        account: account!,
        device: device === null ? null : byDevice!,
        sinceLastMs: last ? this.clock.now().getTime() - last : null,
        sourceTtlMs: sourceTtl,
        addressTtlMs: addressTtl,
        deviceTtlMs: deviceTtl,
      },
      this.limits,
    );
  }

  // Counts a failure on every counter it belongs to; true when it locked something out.
  async fail(email: string, address: string, device: string | null): Promise<boolean> {
    const k = this.keys(email, address, device);
    const window = String(this.windowMs);
    const tx = this.redis.multi();
    for (const key of [k.source, k.address, k.account, ...(k.device ? [k.device] : [])])
      tx.set(key, '0', 'PX', window, 'NX').incr(key);
    tx.set(k.last, String(this.clock.now().getTime()), 'PX', window);
    const results = (await tx.exec()) ?? [];
    const count = (i: number) => Number(results[i * 2 + 1]?.[1] ?? 0);
    return lockedNow({ source: count(0), address: count(1), device: k.device ? count(3) : null }, this.limits);
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
      last: `${base}:last:${account}`,
      device: device === null ? null : `${base}:dev:${digest(device)}`,
    };
  }
}

const digest = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 32);

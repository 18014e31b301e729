import { join } from 'node:path';
import type { Redis } from '../shared/redis/client';
import { luaScript, type LuaScript } from '../shared/redis/lua-script';
import { CAP_SCOPES, type CapCounter, type CapScope } from './caps';

const SLOTS = CAP_SCOPES.length;

export interface CapClaim {
  owner: string; // decision id of the intake command: <partner id>:<idempotency key>
  counters: readonly CapCounter[];
}

// Counts accepted leads against their caps in Redis (cap-take.lua), exactly across every instance:
// leads of one partner arrive on every intake partition (commands are keyed by their phone's
// bucket), so no single processor could count them alone.
export class CapGate {
  private readonly script: LuaScript;

  // verdictTtlS: how long a command's verdict is remembered, at least as long as its decision is.
  constructor(
    redis: Redis,
    private readonly verdictTtlS: number,
  ) {
    this.script = luaScript(redis, 'leadIntakeCapTake', join(__dirname, 'cap-take.lua'), 1 + SLOTS);
  }

  // Per claim, in order (one connection runs them in the order sent): null when the lead was
  // counted under all its caps, or the scope of the first full one.
  take(claims: readonly CapClaim[]): Promise<(CapScope | null)[]> {
    return Promise.all(
      claims.map(async ({ owner, counters }) => {
        const keys = [`cap:decided:${owner}`];
        const args: (string | number)[] = [this.verdictTtlS];
        for (let i = 0; i < SLOTS; i++) {
          const c = counters[i];
          keys.push(c ? c.key : `cap:unused:${i}`);
          args.push(c ? c.limit : -1, c ? c.ttlS : 1, c ? c.scope : '');
        }
        const verdict = (await this.script(keys, args)) as string;
        return verdict === 'ok' ? null : (verdict as CapScope);
      }),
    );
  }
}

import { randomBytes } from 'node:crypto';
import type { Redis } from '../../shared/redis/client';
import type { LuaScript } from '../../shared/redis/lua-script';
import { windowTakeScript, windowVerdict, type Verdict } from '../../shared/redis/sliding-window';

export const REVEAL_WINDOW_MS = 3_600_000;

// Contacts revealed for one agent in any 60 minutes, over every manager instance (a sliding-window
// log in Redis, window-take.lua): the agent, its supervisor and its CRM draw on the one quota, so
// no way round it exports the agent's leads faster. A refused reveal takes no place.
export class RevealQuota {
  private readonly script: LuaScript;
  private readonly instance = randomBytes(6).toString('hex');
  private seq = 0;

  constructor(
    redis: Redis,
    readonly perHour: number,
  ) {
    this.script = windowTakeScript(redis);
  }

  async take(agentId: string): Promise<Verdict> {
    return windowVerdict(
      await this.script([revealsKey(agentId)], [this.perHour, REVEAL_WINDOW_MS, `${this.instance}:${++this.seq}`]),
      REVEAL_WINDOW_MS,
    );
  }
}

export function revealsKey(agentId: string): string {
  return `reveals:${agentId}`;
}

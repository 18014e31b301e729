import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { lookupHash } from '../shared/crypto/lookup-hash';
import type { Redis } from '../shared/redis/client';
import { luaScript, type LuaScript } from '../shared/redis/lua-script';

// Sightings counted by one script call: a chunk of a few hundred leads is a few calls, each holding
// Redis for a millisecond or so.
const SIGHTINGS_PER_CALL = 100;

export interface BurstSighting {
  member: string; // the command's decision id: a redelivered command is counted once
  receivedAtMs: number;
  ip: string;
  subnet: string | null;
}

// Leads per IP and per subnet in a sliding window, in Redis (burst-count.lua), so the count is the
// same whichever processor instance decides a lead: commands are keyed by their phone's bucket, so
// one IP's leads are spread over every partition and instance, and a count kept in memory would see
// a part of them. One script call per chunk (two per lead were a few percent of the processor's
// CPU); IPs are keyed hashes, never in clear.
export class BurstCounter {
  private readonly script: LuaScript;

  constructor(
    redis: Redis,
    private readonly hashKey: KeyObject,
    private readonly windowMs: number,
  ) {
    this.script = luaScript(redis, 'leadIntakeBurstCount', join(__dirname, 'burst-count.lua'), 'any');
  }

  async count(sightings: readonly BurstSighting[], now: Date): Promise<{ ip: number; subnet: number }[]> {
    const counts: { ip: number; subnet: number }[] = [];
    for (let i = 0; i < sightings.length; i += SIGHTINGS_PER_CALL) {
      const part = sightings.slice(i, i + SIGHTINGS_PER_CALL);
      const keys: string[] = [];
      const args: (string | number)[] = [this.windowMs, now.getTime()];
      for (const s of part) {
        keys.push(`burst:ip:${lookupHash(this.hashKey, 'ip', s.ip)}`);
        keys.push(`burst:subnet:${lookupHash(this.hashKey, 'subnet', s.subnet ?? s.ip)}`);
        args.push(s.member, s.receivedAtMs);
      }
      const n = (await this.script(keys, args)) as number[];
      for (let j = 0; j < part.length; j++) counts.push({ ip: Number(n[2 * j]), subnet: Number(n[2 * j + 1]) });
    }
    return counts;
  }
}

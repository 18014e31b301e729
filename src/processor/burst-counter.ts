import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lookupHash } from '../shared/crypto/lookup-hash';
import type { Redis } from '../shared/redis/client';

const COMMAND = 'leadIntakeBurstCount';

export interface BurstSighting {
  member: string; // the command's decision id: a redelivered command is counted once
  receivedAtMs: number;
  ip: string;
  subnet: string | null;
}

type Pipeline = Record<typeof COMMAND, (key: string, ...args: (string | number)[]) => unknown> & {
  exec(): Promise<[Error | null, unknown][] | null>;
};

// Leads per IP and per subnet in a sliding window, in Redis (burst-count.lua), so the count is the
// same whichever processor instance decides a lead: commands are keyed by their phone's bucket, so
// one IP's leads are spread over every partition and instance, and a count kept in memory would see
// a part of them. One pipelined round trip per chunk; IPs are keyed hashes, never in clear.
export class BurstCounter {
  constructor(
    private readonly redis: Redis,
    private readonly hashKey: KeyObject,
    private readonly windowMs: number,
  ) {
    if (!(COMMAND in redis))
      redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: readFileSync(join(__dirname, 'burst-count.lua'), 'utf8') });
  }

  async count(sightings: readonly BurstSighting[], now: Date): Promise<{ ip: number; subnet: number }[]> {
    if (sightings.length === 0) return [];
    const pipe = this.redis.pipeline() as unknown as Pipeline;
    for (const s of sightings) {
      const args = [this.windowMs, now.getTime(), s.member, s.receivedAtMs];
      pipe[COMMAND](`burst:ip:${lookupHash(this.hashKey, 'ip', s.ip)}`, ...args);
      pipe[COMMAND](`burst:subnet:${lookupHash(this.hashKey, 'subnet', s.subnet ?? s.ip)}`, ...args);
    }
    const results = (await pipe.exec()) ?? [];
    const counts = results.map(([err, n]) => {
      if (err) throw err;
      return Number(n);
    });
    return sightings.map((_s, i) => ({ ip: counts[2 * i] ?? 0, subnet: counts[2 * i + 1] ?? 0 }));
  }
}

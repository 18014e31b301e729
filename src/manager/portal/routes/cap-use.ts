import { capCounters, type CapScope } from '../../../processor/commands';
import type { PartnerDoc } from '../../../shared/mongo/documents';
import type { Redis } from '../../../shared/redis/client';

export interface CapUse {
  scope: CapScope;
  country: string | null;
  limit: number;
  used: number;
  left: number;
}

export type CappedPartner = Pick<PartnerDoc, '_id' | 'caps' | 'time_zone' | 'mode'>;

// Each of the partner's caps with what the current day or hour (in the partner's time zone) has
// used of it, read from the counters the processor takes places in (one MGET), so what is shown is
// what the next lead is checked against.
export async function capUse(redis: Redis, partner: CappedPartner, now: Date): Promise<CapUse[]> {
  const countries = Object.keys(partner.caps?.countries ?? {}).sort();
  const counters = [
    ...capCounters(partner, undefined, now).map((c) => ({ ...c, country: null })),
    ...countries.flatMap((country) =>
      capCounters(partner, country, now)
        .filter((c) => c.scope.startsWith('country_'))
        .map((c) => ({ ...c, country })),
    ),
  ];
  if (counters.length === 0) return [];
  const values = await redis.mget(...counters.map((c) => c.key));
  return counters.map((c, i) => {
    const used = Number(values[i] ?? 0);
    return { scope: c.scope, country: c.country, limit: c.limit, used, left: Math.max(0, c.limit - used) };
  });
}

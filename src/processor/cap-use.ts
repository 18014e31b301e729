import { capCounters, type CapScope } from './caps';
import type { PartnerDoc } from '../shared/mongo/documents';
import type { Redis } from '../shared/redis/client';

export interface CapUse {
  scope: CapScope;
  country: string | null;
  limit: number;
  used: number;
  left: number;
}

// The same with the counter it was read from: a new one starts with each day or hour (the alerts
// tell a cap once per counter).
export type CounterUse = CapUse & { counter: string };

export type CappedPartner = Pick<PartnerDoc, '_id' | 'caps' | 'time_zone' | 'mode'>;

// Each of the partner's caps with what the current day or hour (in the partner's time zone) has
// used of it, read from the counters the processor takes places in (one MGET), so what is shown is
// what the next lead is checked against.
export async function capCounterUse(redis: Redis, partner: CappedPartner, now: Date): Promise<CounterUse[]> {
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
    return {
      scope: c.scope,
      country: c.country,
      limit: c.limit,
      used,
      left: Math.max(0, c.limit - used),
      counter: c.key,
    };
  });
}

export async function capUse(redis: Redis, partner: CappedPartner, now: Date): Promise<CapUse[]> {
  return (await capCounterUse(redis, partner, now)).map(({ counter: _, ...use }) => use);
}

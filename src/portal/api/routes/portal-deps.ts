import { quotaWindowKey, WINDOW_MS } from '../../../shared/partners/partner-quota';
import type { Redis } from '../../../shared/redis/client';
import { loadStatuses, type Statuses } from '../../../shared/status-catalog';
import type { ManagerOptions, ManagerServices } from '../../../manager/services';
import { LeadRefStore } from '../../../shared/store/lead-refs';
import { MaskedPhones } from '../../../manager/workspace/masked-phones';
import { PartnerReads } from '../partner-reads';
import { capUse, type CapUse, type CappedPartner } from '../../../processor/commands';
import { loadSnippets, type Snippet, type Usage } from './integration-view';

// What the portal's data routes are given: the manager's services (every read and command goes
// through them, scoped to the signed-in partner) and the few settings and clients they answer by.
export type PortalDataOptions = Pick<ManagerOptions, 'config' | 'mongo' | 'redis' | 'cipher'>;

export interface PortalDeps extends ManagerServices {
  config: ManagerOptions['config'];
  phones: MaskedPhones;
  reads: PartnerReads;
  statuses: Statuses;
  snippets: readonly Snippet[];
  quotaUse(partnerId: string): Promise<Usage>;
  capUse(partner: CappedPartner): Promise<CapUse[]>;
  // The zone the signed-in person reads the portal in (src/shared/person-zone.ts).
  zoneOf(accountId: string, partnerId: string): Promise<string>;
}

export function portalDeps(services: ManagerServices, o: PortalDataOptions): Omit<PortalDeps, 'zoneOf'> {
  const phones = new MaskedPhones(o.cipher, services.leadKeys);
  return {
    ...services,
    config: o.config,
    phones,
    reads: new PartnerReads({
      leadList: services.leadList,
      refs: new LeadRefStore(o.mongo.collections.leadRefs),
      phones,
      cells: services.cells,
    }),
    statuses: loadStatuses(o.config.statusCatalogFile),
    snippets: loadSnippets(),
    quotaUse: (partnerId) => quotaUse(o.redis, partnerId),
    capUse: (partner) => capUse(o.redis, partner, new Date()),
  };
}

// The partner's requests in its current windows, read as the ingress counts them (by Redis time).
export async function quotaUse(redis: Redis, partnerId: string): Promise<Usage> {
  const [seconds, micros] = await redis.time();
  const since = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - WINDOW_MS;
  const [intake, status] = await Promise.all([
    redis.zcount(quotaWindowKey('intake', partnerId), `(${since}`, '+inf'),
    redis.zcount(quotaWindowKey('status', partnerId), `(${since}`, '+inf'),
  ]);
  return { intake, status };
}

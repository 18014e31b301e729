import { localTime } from '../../shared/local-time';
import type { PartnerDoc } from '../../shared/mongo/documents';

// A partner's day (yyyy-mm-dd in its time_zone setting, UTC without one) for the chunk's partners,
// looked up once per chunk through the partner directory (cached).
export async function partnerDays(
  ids: Iterable<string>,
  byId: (id: string) => Promise<Pick<PartnerDoc, 'time_zone'> | null>,
): Promise<(partnerId: string, at: Date) => string> {
  const zones = new Map<string, string>();
  for (const id of new Set(ids)) zones.set(id, (await byId(id))?.time_zone ?? 'UTC');
  return (partnerId, at) => localTime(at, zones.get(partnerId) ?? 'UTC').date;
}

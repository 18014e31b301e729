import { ipInRanges } from '../shared/net/cidr';
import type { LeadRecord } from '../shared/schemas';

// What the rules read: the IP comes out of the lead's sealed personal data, opened for this alone.
export type RuledLead = Pick<LeadRecord, 'country_code' | 'source'> & { ip: string };

export interface RuleSet {
  blockedCountries: readonly string[];
  blockedSources: readonly string[];
  blockedIpRanges: readonly string[];
}

// Business rules applied after validation (spec 3.2 "business rule fails"). Global rules and the
// partner's own both apply. Returns the machine-readable rejection reason, or null to go on.
// Reasons: country_blocked:<cc>, source_blocked, ip_blocked.
export function rejectionReason(lead: RuledLead, global: RuleSet, partner: Partial<RuleSet>): string | null {
  const cc = lead.country_code;
  if (cc && (global.blockedCountries.includes(cc) || (partner.blockedCountries ?? []).includes(cc))) return `country_blocked:${cc}`;
  const source = lead.source?.toLowerCase();
  const sources = [...global.blockedSources, ...(partner.blockedSources ?? [])].map((s) => s.toLowerCase());
  if (source && sources.includes(source)) return 'source_blocked';
  if (ipInRanges(lead.ip, [...global.blockedIpRanges, ...(partner.blockedIpRanges ?? [])])) return 'ip_blocked';
  return null;
}

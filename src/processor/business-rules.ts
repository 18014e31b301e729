import type { LeadRisk } from '../shared/mongo/documents';
import { ipInRanges } from '../shared/net/cidr';
import type { LeadRecord } from '../shared/schemas';
import { overRiskThreshold } from './risk-signals';

// What the rules read: the IP comes out of the lead's sealed personal data, opened for this alone;
// the risk score from the fraud signals.
export type RuledLead = Pick<LeadRecord, 'country_code' | 'source'> & { ip: string; risk: Pick<LeadRisk, 'score'> };

export interface RuleSet {
  blockedCountries: readonly string[];
  blockedSources: readonly string[];
  blockedIpRanges: readonly string[];
}

export interface PartnerRules extends Partial<RuleSet> {
  riskThreshold?: number | null;
}

// Business rules applied after validation (spec 3.2 "business rule fails"). Global rules and the
// partner's own both apply. Returns the machine-readable rejection reason, or null to go on.
// Reasons: country_blocked:<cc>, source_blocked, ip_blocked, risk_rejected.
export function rejectionReason(lead: RuledLead, global: RuleSet, partner: PartnerRules): string | null {
  const cc = lead.country_code;
  if (cc && (global.blockedCountries.includes(cc) || (partner.blockedCountries ?? []).includes(cc)))
    return `country_blocked:${cc}`;
  const source = lead.source?.toLowerCase();
  const sources = [...global.blockedSources, ...(partner.blockedSources ?? [])].map((s) => s.toLowerCase());
  if (source && sources.includes(source)) return 'source_blocked';
  if (ipInRanges(lead.ip, [...global.blockedIpRanges, ...(partner.blockedIpRanges ?? [])])) return 'ip_blocked';
  if (overRiskThreshold(lead.risk, partner.riskThreshold)) return 'risk_rejected';
  return null;
}

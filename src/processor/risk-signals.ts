import type { LeadRisk } from '../shared/mongo/documents';

// What the fraud rules read about one lead; countries are ISO 3166 alpha-2, null when unknown.
export interface RiskFacts {
  ipCountry: string | null;
  phoneCountry: string | null;
  declaredCountry: string | null;
  disposableEmail: boolean;
  // Leads from the lead's IP and from its subnet (IPv4 /24, IPv6 /48) within the burst window,
  // this one included.
  leadsFromIp: number;
  leadsFromSubnet: number;
}

export interface BurstLimits {
  perIp: number;
  perSubnet: number;
}

// Points each reason adds to the score (capped at 100). A country disagreement alone is common
// (a traveller, a VPN); two of them, or a disposable address, push a lead over a strict threshold.
export const RISK_POINTS = {
  ip_country_mismatch_phone: 30,
  ip_country_mismatch_declared: 30,
  phone_country_mismatch_declared: 20,
  disposable_email: 40,
  ip_burst: 40,
  subnet_burst: 25,
} as const;

export type RiskReason = keyof typeof RISK_POINTS;

const differ = (a: string | null, b: string | null): boolean => a !== null && b !== null && a !== b;

// The fraud signals of one lead: pure, so each rule is tested on its own. Unknown countries never
// count as a mismatch (a private IP, a number libphonenumber cannot place).
export function assessRisk(facts: RiskFacts, limits: BurstLimits): LeadRisk {
  const reasons: RiskReason[] = [];
  if (differ(facts.ipCountry, facts.phoneCountry)) reasons.push('ip_country_mismatch_phone');
  if (differ(facts.ipCountry, facts.declaredCountry)) reasons.push('ip_country_mismatch_declared');
  if (differ(facts.phoneCountry, facts.declaredCountry)) reasons.push('phone_country_mismatch_declared');
  if (facts.disposableEmail) reasons.push('disposable_email');
  if (facts.leadsFromIp > limits.perIp) reasons.push('ip_burst');
  if (facts.leadsFromSubnet > limits.perSubnet) reasons.push('subnet_burst');
  const score = Math.min(
    100,
    reasons.reduce((sum, r) => sum + RISK_POINTS[r], 0),
  );
  return { score, reasons, ip_country: facts.ipCountry };
}

// A partner's threshold: a lead scoring at or above it is rejected (risk_rejected); none, never.
export function overRiskThreshold(risk: Pick<LeadRisk, 'score'>, threshold: number | null | undefined): boolean {
  return threshold !== null && threshold !== undefined && risk.score >= threshold;
}

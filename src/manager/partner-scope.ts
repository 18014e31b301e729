// The partners a request may see (Principal.partnerScope): null for every partner, else the ones an
// affiliate manager looks after. Services filter their read models by it: a list reads one prefix
// per partner in scope (merged), a single resource outside it is unknown (404).
export type PartnerScope = ReadonlySet<string> | null;

export const ALL_PARTNERS: PartnerScope = null;

export function inPartnerScope(scope: PartnerScope, partnerId: string): boolean {
  return scope === null || scope.has(partnerId);
}

// The partners a list reads for its affiliate_id filter: null for every partner (the unfiltered
// view); a filter outside the scope reads none, an empty page, as an unknown partner's would be.
export function partnersToRead(scope: PartnerScope, affiliateId: string | undefined): string[] | null {
  if (affiliateId !== undefined) return inPartnerScope(scope, affiliateId) ? [affiliateId] : [];
  return scope === null ? null : [...scope].sort();
}

import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { LeadRisk } from '../shared/mongo/documents';
import { decisionId } from '../shared/store/intake-decisions';
import type { BurstCounter } from './burst-counter';
import { ipCountry, subnetOf } from './ip-facts';
import type { OpenedLead } from './lead-opener';
import { assessRisk, type BurstLimits } from './risk-signals';

// Built once: the package's isDisposableEmail() builds this set of ~8,900 domains again on every
// call, which was 30% of the processor's CPU under load.
let disposableDomains: ReadonlySet<string> | undefined;
export function isDisposableEmail(email: string): boolean {
  disposableDomains ??= disposableEmailBlocklistSet();
  return disposableDomains.has((email.split('@').pop() ?? '').trim().toLowerCase());
}

export interface AssessedLead {
  ip: string; // for the IP rule; never stored or logged in clear
  risk: LeadRisk;
}

// Scores a chunk's opened leads (lead-opener.ts) from the fraud facts: the IP's and the phone's
// country, the declared one, a disposable email domain, and how many leads came from the IP and its
// subnet lately (one Redis round trip for the chunk).
export class RiskAssessment {
  constructor(
    private readonly bursts: BurstCounter,
    private readonly limits: BurstLimits,
  ) {}

  async assess(opened: readonly OpenedLead[], now: Date): Promise<AssessedLead[]> {
    const counts = await this.bursts.count(
      opened.map(({ cmd, ip }) => ({
        member: decisionId(cmd.partner_id, cmd.idempotency_key),
        receivedAtMs: Date.parse(cmd.received_at),
        ip,
        subnet: subnetOf(ip),
      })),
      now,
    );
    return opened.map(({ cmd, ip, phone, email }, i) => ({
      ip,
      risk: assessRisk(
        {
          ipCountry: ipCountry(ip),
          phoneCountry: parsePhoneNumberFromString(phone)?.country ?? null,
          declaredCountry: cmd.lead.country_code ?? null,
          disposableEmail: email !== null && isDisposableEmail(email),
          leadsFromIp: counts[i]?.ip ?? 0,
          leadsFromSubnet: counts[i]?.subnet ?? 0,
        },
        this.limits,
      ),
    }));
  }
}

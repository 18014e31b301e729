import { randomUUID } from 'node:crypto';
import { sign } from '../../src/shared/crypto/signature';

export interface PartnerCreds {
  id: string;
  api_key: string;
  hmac_secret: string;
  callback_secret: string;
}

export interface SignedRequest {
  method?: 'GET' | 'POST'; // POST when absent
  path: string;
  headers: Record<string, string>;
  body: string;
  kind: 'new' | 'duplicate';
}

// Valid intake requests from many partners, signed exactly as partners sign them (Bearer key,
// HMAC-SHA256 of the raw body, Unix-seconds timestamp, a fresh Idempotency-Key). A share of them
// repeat the phone of an earlier lead (new email, new external id): the processor answers 409
// duplicate. Deterministic per run tag; numbers are possible German mobile numbers.
export class LeadStream {
  private i = 0;
  private readonly base: number;
  private readonly fresh: number[] = []; // indices of leads sent with a phone of their own

  constructor(
    private readonly partners: PartnerCreds[],
    private readonly tag: string,
    private readonly duplicateShare: number,
    seed = 1,
  ) {
    if (partners.length === 0) throw new Error('no partners');
    this.base = (hash(tag) % 50_000_000) + seed;
    this.rand = mulberry32(hash(tag) ^ seed);
  }

  private readonly rand: () => number;

  // Every external id sent so far, with its partner's index.
  sentExternalIds(): { partner: number; externalId: string }[] {
    return Array.from({ length: this.i }, (_, i) => ({
      partner: i % this.partners.length,
      externalId: `${this.tag}-${i}`,
    }));
  }

  next(): SignedRequest {
    const i = this.i++;
    const partner = this.partners[i % this.partners.length] as PartnerCreds;
    const duplicate = this.fresh.length > 20 && this.rand() < this.duplicateShare;
    // A duplicate reuses the phone of a lead with a phone of its own sent at least 20 new leads
    // earlier (decided by then unless the system is far behind; then the processor's claim finds it).
    const phoneOf = duplicate ? (this.fresh[Math.floor(this.rand() * (this.fresh.length - 20))] as number) : i;
    if (!duplicate) this.fresh.push(i);
    const body = JSON.stringify({
      external_id: `${this.tag}-${i}`,
      first_name: 'Bench',
      last_name: `Lead${i}`,
      email: `lead${i}.${this.tag}@example.com`,
      phone: `+49151${String(this.base + phoneOf)
        .padStart(8, '0')
        .slice(-8)}`,
      country: 'DE',
      language: 'de',
      source: 'benchmark',
      funnel: 'bench',
      sub_id: `s${i % 97}`,
      click_id: `c${i}`,
      ip: `203.0.113.${i % 250}`,
      landing_url: 'https://example.com/landing',
    });
    return {
      path: '/api/v1/inbound/leads',
      body,
      kind: duplicate ? 'duplicate' : 'new',
      headers: {
        authorization: `Bearer ${partner.api_key}`,
        'x-signature': sign(partner.hmac_secret, body),
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        'idempotency-key': randomUUID(),
        'content-type': 'application/json',
      },
    };
  }
}

// A status lookup (spec 4.2), signed as partners sign a GET: over the empty body.
export function statusRequest(partner: PartnerCreds, externalId: string): SignedRequest {
  return {
    method: 'GET',
    path: `/api/v1/inbound/leads/${encodeURIComponent(externalId)}/status`,
    body: '',
    kind: 'new',
    headers: {
      authorization: `Bearer ${partner.api_key}`,
      'x-signature': sign(partner.hmac_secret, Buffer.alloc(0)),
      'x-timestamp': String(Math.floor(Date.now() / 1000)),
    },
  };
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function mulberry32(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

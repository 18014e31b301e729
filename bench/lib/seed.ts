import { MongoClient } from 'mongodb';
import { newIntakeKey } from '../../src/ingress/data-key-stock';
import { sealLead } from '../../src/ingress/seal-lead';
import { DedupClaims } from '../../src/processor/dedup-claims';
import { newLeadDoc } from '../../src/processor/new-lead';
import { loadConfig } from '../../src/shared/config';
import { lookupHash } from '../../src/shared/crypto/lookup-hash';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { leadId } from '../../src/shared/ids';
import { insertAllNew } from '../../src/shared/mongo/bulk';
import type { DedupClaimDoc, IdBlockDoc, LeadDoc, LeadRefDoc } from '../../src/shared/mongo/documents';
import { leadRefId } from '../../src/shared/store/lead-refs';
import type { IntakeCommand } from '../../src/shared/schemas';
import type { PartnerCreds } from './leads';

const CHUNK = 2000;

export interface Seeded {
  count: number;
  seconds: number;
  externalIds: { partner: number; externalId: string }[];
}

// Leads already stored, as the processor would have stored them (encrypted, hashed, assigned, with
// their ref and claims), written straight into the scenario's database in bulk: the store a busy
// installation has after some weeks. Lead numbers 1..count are reserved in id_blocks so the
// processor's allocator starts after them.
export async function seedLeads(
  env: Record<string, string>,
  partners: PartnerCreds[],
  count: number,
  tag: string,
  log: (m: string) => void,
): Promise<Seeded> {
  const config = loadConfig({ ...env, ROLE: 'processor' });
  const cipher = new PiiCipher(config.crypto.encryptionKeys, config.crypto.activeKeyId);
  const client = await MongoClient.connect(config.mongo.url);
  const started = Date.now();
  const externalIds: Seeded['externalIds'] = [];
  try {
    const db = client.db(config.mongo.db);
    const claims = new DedupClaims(db).collectionAt(new Date());
    const now = new Date();
    for (let from = 1; from <= count; from += CHUNK) {
      const leads: LeadDoc[] = [];
      const refs: LeadRefDoc[] = [];
      const claimDocs: DedupClaimDoc[] = [];
      for (let n = from; n < Math.min(from + CHUNK, count + 1); n++) {
        const p = n % partners.length;
        const partner = partners[p] as PartnerCreds;
        const phone = `+49160${String(n).padStart(8, '0')}`;
        const email = `stored${n}.${tag}@example.com`;
        const cmd: IntakeCommand = {
          correlation_id: `seed-${n}`,
          reply_to: 'seed',
          partner_id: partner.id,
          idempotency_key: `seed-${tag}-${n}`,
          body_hash: '0'.repeat(64),
          received_at: now.toISOString(),
          // Stored as leads directly: their data keys are not needed.
          lead: sealLead(
            {
              external_id: `stored-${tag}-${n}`,
              ip: '203.0.113.9',
              country_code: 'DE',
              language: 'de',
              source: 'benchmark',
              first_name: 'Stored',
              last_name: `Lead${n}`,
              phone,
              email,
            },
            newIntakeKey(cipher, now).key,
            config.crypto.hashKey,
          ).record,
        };
        const hashes = {
          phone_hash: lookupHash(config.crypto.hashKey, 'phone', phone),
          email_hash: lookupHash(config.crypto.hashKey, 'email', email),
        };
        const lead = newLeadDoc(
          cmd,
          leadId(n),
          { decidedAt: now, createdAt: now },
          { kind: 'accepted', agent: { _id: 'ag-seeded' } },
          { risk: { score: 0, reasons: [], ip_country: null }, test: false, hashes },
        );
        const owner = `${partner.id}:${cmd.idempotency_key}`;
        leads.push(lead);
        refs.push({ _id: leadRefId(partner.id, cmd.lead.external_id), lead_id: lead._id, owner, created_at: now });
        claimDocs.push({ _id: `g:phone:${hashes.phone_hash}`, lead_id: lead._id, owner, claimed_at: now });
        claimDocs.push({ _id: `g:email:${hashes.email_hash}`, lead_id: lead._id, owner, claimed_at: now });
        externalIds.push({ partner: p, externalId: cmd.lead.external_id });
      }
      await insertAllNew(db.collection<LeadDoc>('leads'), leads);
      await insertAllNew(db.collection<LeadRefDoc>('lead_refs'), refs);
      await insertAllNew(claims, claimDocs);
      if (from % 50_000 < CHUNK) log(`stored: ${Math.min(from + CHUNK - 1, count)} of ${count} leads seeded`);
    }
    const blocks: IdBlockDoc[] = [];
    for (let b = 0; b * config.rules.idBlockSize < count + 1; b++)
      blocks.push({ _id: `lead:${b}`, sequence: 'lead', block: b, taken_at: now });
    await insertAllNew(db.collection<IdBlockDoc>('id_blocks'), blocks);
  } finally {
    await client.close();
  }
  return { count, seconds: Math.round((Date.now() - started) / 1000), externalIds };
}

import type { KeyObject } from 'node:crypto';
import { lookupHash } from '../shared/crypto/lookup-hash';
import { sealPersonal } from '../shared/crypto/personal-data';
import type { PiiCipher } from '../shared/crypto/pii-cipher';
import type { LeadRecord } from '../shared/schemas';
import type { NormalisedLead } from './normalise-lead';

// Phone and email leave the ingress only encrypted (AES-256-GCM, key id inside) and as keyed hashes
// for dedup, names, IP, user agent and metadata only encrypted: from here on no topic, document or
// log line can hold them in clear. What routing and reporting read (country, source...) stays plain.
export function sealLead(lead: NormalisedLead, cipher: PiiCipher, hashKey: KeyObject): LeadRecord {
  const { phone, email, first_name, last_name, full_name, ip, user_agent, metadata, ...rest } = lead;
  const record: LeadRecord = {
    ...rest,
    phone_enc: cipher.encrypt(phone),
    phone_hash: lookupHash(hashKey, 'phone', phone),
    personal_enc: sealPersonal(cipher, { first_name, last_name, full_name, ip, user_agent, metadata }),
  };
  if (email !== undefined) {
    record.email_enc = cipher.encrypt(email);
    record.email_hash = lookupHash(hashKey, 'email', email);
  }
  return record;
}

import type { KeyObject } from 'node:crypto';
import { lookupHash, phoneBucket } from '../shared/crypto/lookup-hash';
import { sealPersonal } from '../shared/crypto/personal-data';
import type { LeadRecord } from '../shared/schemas';
import type { IssuedKey } from './data-key-stock';
import type { NormalisedLead } from './normalise-lead';

// Phone, email, names, IP, user agent, metadata and the landing URL's query string (often ?email=
// or ?phone=) leave the ingress only encrypted: from here on no topic, document or log line can hold
// them in clear. All three ciphertexts use the lead's own data key, so erasing the lead is destroying
// that key; the record carries only where the key is stored (key_ref, intake-keys.ts), where it
// was stored before it was issued (data-key-stock.ts). Nor does the record carry the keyed hashes
// dedup looks for: they would outlive the key, and whoever holds HASH_KEY finds a phone from its
// hash; the processor derives them from what it opens. `bucket` keys the command (phoneBucket).
// What routing and reporting read (country, source...) stays plain.
export function sealLead(
  lead: NormalisedLead,
  key: IssuedKey,
  hashKey: KeyObject,
): { record: LeadRecord; bucket: string } {
  const { phone, email, first_name, last_name, full_name, ip, user_agent, metadata, landing_url, ...rest } = lead;
  const { cipher } = key;
  const record: LeadRecord = {
    ...rest,
    key_ref: key.ref,
    phone_enc: cipher.encrypt(phone),
    personal_enc: sealPersonal(cipher, { first_name, last_name, full_name, ip, user_agent, metadata, landing_url }),
  };
  if (landing_url !== undefined) record.landing_url = landing_url.split(/[?#]/, 1)[0] as string;
  if (email !== undefined) record.email_enc = cipher.encrypt(email);
  return { record, bucket: phoneBucket(lookupHash(hashKey, 'phone', phone)) };
}

import { storedLeadCipher } from '../../shared/crypto/data-key';
import { openPersonal } from '../../shared/crypto/personal-data';
import type { PiiCipher } from '../../shared/crypto/pii-cipher';
import type { LeadDoc, LeadKeyDoc } from '../../shared/mongo/documents';

// What a reveal answers: how to reach the lead, nothing else of its personal data (no IP, no metadata).
export interface LeadContact {
  lead_id: string;
  phone: string;
  email: string | null;
  full_name: string | null;
  language: string | null;
}

type SealedLead = Pick<LeadDoc, '_id' | 'phone_enc' | 'email_enc' | 'personal_enc' | 'language'>;

// The lead's contact opened with its own data key (or, for a lead sealed before per-lead keys, the
// keyring); null when there is nothing to open: the key or the ciphertexts are gone (erasure begun).
export function openContact(
  keyring: PiiCipher,
  lead: SealedLead,
  key: Pick<LeadKeyDoc, 'dek_enc'> | undefined,
): LeadContact | null {
  const cipher = lead.phone_enc === undefined ? null : storedLeadCipher(keyring, lead.phone_enc, key);
  if (!cipher || lead.phone_enc === undefined) return null;
  const personal = lead.personal_enc === undefined ? null : openPersonal(cipher, lead.personal_enc);
  return {
    lead_id: lead._id,
    phone: cipher.decrypt(lead.phone_enc),
    email: lead.email_enc ? cipher.decrypt(lead.email_enc) : null,
    full_name: personal === null ? null : fullName(personal),
    language: lead.language ?? null,
  };
}

// The partner's full_name, else first and last name as given.
export function fullName(p: { full_name?: string; first_name?: string; last_name?: string }): string | null {
  if (p.full_name) return p.full_name;
  const joined = [p.first_name, p.last_name].filter((s) => s).join(' ');
  return joined === '' ? null : joined;
}

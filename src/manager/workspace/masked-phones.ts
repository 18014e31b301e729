import { storedLeadCipher } from '../../shared/crypto/data-key';
import type { PiiCipher } from '../../shared/crypto/pii-cipher';
import type { LeadDoc } from '../../shared/mongo/documents';
import type { LeadKeyStore } from '../../shared/store/lead-keys';
import { maskPhone } from './phone-mask';

export type PhonedLead = Pick<LeadDoc, '_id' | 'created_at' | 'phone_enc'>;

// Leads' numbers, masked: opened here with each lead's own data key (read by _id, one read per day
// of creation) and masked before they leave this function, so no full number is ever in an answer.
// null for a lead whose personal data is erased (no key, no ciphertext).
export class MaskedPhones {
  constructor(
    private readonly keyring: PiiCipher,
    private readonly keys: Pick<LeadKeyStore, 'byLeads'>,
  ) {}

  async of(leads: readonly PhonedLead[], signal?: AbortSignal): Promise<Map<string, string | null>> {
    const sealed = leads.filter((l) => l.phone_enc !== undefined);
    const keys = await this.keys.byLeads(sealed, signal);
    const masked = new Map<string, string | null>(leads.map((l) => [l._id, null]));
    for (const lead of sealed) {
      const cipher = storedLeadCipher(this.keyring, lead.phone_enc as string, keys.get(lead._id));
      if (cipher) masked.set(lead._id, maskPhone(cipher.decrypt(lead.phone_enc as string)));
    }
    return masked;
  }
}

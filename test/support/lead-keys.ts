import { openDataKey } from '../../src/shared/crypto/data-key';
import type { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import type { LeadDoc } from '../../src/shared/mongo/documents';
import type { Runtime } from '../../src/shared/runtime';
import { IntakeKeyStore } from '../../src/shared/store/intake-keys';
import { LeadKeyStore } from '../../src/shared/store/lead-keys';

// The cipher of a stored lead's own data key, to check what its ciphertexts hold; null once the
// key is destroyed.
export async function storedLeadCipher(
  rt: Runtime,
  lead: Pick<LeadDoc, '_id' | 'created_at'>,
): Promise<PiiCipher | null> {
  const key = (await new LeadKeyStore(rt.mongo.db, new IntakeKeyStore(rt.mongo.db)).byLeads([lead])).get(lead._id);
  return key ? openDataKey(rt.cipher, key.dek_enc) : null;
}

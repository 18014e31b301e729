import { randomBytes } from 'node:crypto';
import { PiiCipher } from './pii-cipher';

// Key id inside every ciphertext sealed with a lead's own data key ("dek.<iv>.<tag>.<data>").
const DATA_KEY_ID = 'dek';

export interface DataKey {
  cipher: PiiCipher;
  wrapped: string; // the key sealed by the keyring's active key: what is stored, never the key itself
}

// Each lead's personal data is sealed with a key of its own (crypto-shredding): destroying that
// one wrapped key leaves every copy of the lead's ciphertext, on Kafka or in MongoDB, unreadable,
// while the keyring key that wraps it stays in use for every other lead.
export function newDataKey(keyring: PiiCipher): DataKey {
  const key = randomBytes(32);
  return { cipher: dataKeyCipher(key), wrapped: keyring.encrypt(key.toString('base64')) };
}

export function openDataKey(keyring: PiiCipher, wrapped: string): PiiCipher {
  return dataKeyCipher(Buffer.from(keyring.decrypt(wrapped), 'base64'));
}

// The cipher a sealed lead record was made with: its own data key, or (records from before
// per-lead keys, which carry none) the keyring itself.
export function leadCipher(keyring: PiiCipher, record: { dek_enc?: string }): PiiCipher {
  return record.dek_enc === undefined ? keyring : openDataKey(keyring, record.dek_enc);
}

// Whether a ciphertext was sealed with a lead's own data key: it opens with that key or not at all.
export function sealedWithDataKey(ciphertext: string): boolean {
  return ciphertext.startsWith(`${DATA_KEY_ID}.`);
}

// The cipher that opens a stored lead's `sealed` ciphertext given its stored key (undefined: none
// found), or null when nothing can: the key was destroyed, the lead's erasure has begun. A lead
// sealed before per-lead keys opens with the keyring.
export function storedLeadCipher(
  keyring: PiiCipher,
  sealed: string,
  key: { dek_enc?: string } | undefined,
): PiiCipher | null {
  if (key === undefined && sealedWithDataKey(sealed)) return null;
  return leadCipher(keyring, key ?? {});
}

function dataKeyCipher(key: Buffer): PiiCipher {
  return new PiiCipher(new Map([[DATA_KEY_ID, key]]), DATA_KEY_ID);
}

import { randomBytes } from 'node:crypto';
import type { Collection } from 'mongodb';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import type { PartnerDoc } from '../../src/shared/mongo/documents';
import { PartnerDirectory } from '../../src/shared/partners/partner-directory';

// A partner's secrets are decrypted once per sealed value, not on every request or
// callback; a rotation's new value is decrypted again.
const cipher = new PiiCipher(new Map([['k1', randomBytes(32)]]), 'k1');
const partner = (hmac: string, callback: string) =>
  ({ _id: 'pa-1', hmac_secret_enc: cipher.encrypt(hmac), callback_secret_enc: cipher.encrypt(callback) }) as PartnerDoc;
// The directory's store is not touched by these calls.
const directory = () =>
  new PartnerDirectory({} as Collection<PartnerDoc>, { partnerOf: async () => null }, cipher, 'changed');

it('decrypts each sealed secret once, and a new one (a rotation) again', () => {
  const decrypt = jest.spyOn(cipher, 'decrypt');
  const d = directory();
  const before = partner('hmac-1', 'cb-1');
  for (let i = 0; i < 5; i++) {
    expect(d.hmacSecrets(before)).toEqual(['hmac-1']);
    expect(d.callbackSigning(before).secrets).toEqual(['cb-1']);
  }
  expect(decrypt).toHaveBeenCalledTimes(2);
  expect(d.hmacSecret(partner('hmac-2', 'cb-2'))).toBe('hmac-2');
  expect(decrypt).toHaveBeenCalledTimes(3);
  decrypt.mockRestore();
});

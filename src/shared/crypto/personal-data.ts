import { describeErrors, validatorFor, type PersonalData } from '../schemas';
import type { PiiCipher } from './pii-cipher';

// Names, IP, user agent and the partner's metadata travel and rest as one ciphertext: only the
// processor's IP rule and the contact reveal (the name) read them, so one sealed object is simpler than a field each.
export function sealPersonal(cipher: PiiCipher, data: PersonalData): string {
  return cipher.encrypt(JSON.stringify(data));
}

export function openPersonal(cipher: PiiCipher, sealed: string): PersonalData {
  const data: unknown = JSON.parse(cipher.decrypt(sealed));
  const validate = validatorFor<PersonalData>('personal-data.json');
  if (!validate(data))
    throw new Error(`personal data does not match personal-data.json: ${describeErrors(validate.errors)}`);
  return data;
}

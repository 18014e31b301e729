import { randomBytes } from 'node:crypto';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';

const ivOf = (sealed: string): string => sealed.split('.')[1] as string;

describe('PiiCipher', () => {
  it('seals every value with an IV of its own, across refills of the IV pool, and opens each', () => {
    const cipher = new PiiCipher(new Map([['k1', randomBytes(32)]]), 'k1');
    const sealed = Array.from({ length: 3000 }, (_, i) => cipher.encrypt(`+49151${i}`));
    expect(new Set(sealed.map(ivOf)).size).toBe(3000);
    expect(sealed.every((s) => Buffer.from(ivOf(s), 'base64url').length === 12)).toBe(true);
    sealed.forEach((s, i) => expect(cipher.decrypt(s)).toBe(`+49151${i}`));
  });

  it('refuses a ciphertext whose tag does not match', () => {
    const cipher = new PiiCipher(new Map([['k1', randomBytes(32)]]), 'k1');
    const [id, iv, , data] = cipher.encrypt('ann@example.com').split('.');
    const forged = [id, iv, Buffer.alloc(16).toString('base64url'), data].join('.');
    expect(() => cipher.decrypt(forged)).toThrow();
  });
});

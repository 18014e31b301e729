import { sealedWithNewKey } from '../support/intake-commands';
import { leadCipher, newDataKey, openDataKey } from '../../src/shared/crypto/data-key';
import { openPersonal } from '../../src/shared/crypto/personal-data';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import { retentionCutoff } from '../../src/processor/retention';
import { eventForHistoryEntry } from '../../src/processor/lead-events';
import { testLabel, type LeadDoc } from '../../src/shared/mongo/documents';
import { createSecretKey, randomBytes } from 'node:crypto';

const keyring = new PiiCipher(new Map([['k1', randomBytes(32)]]), 'k1');

describe('per-lead data keys (crypto-shredding)', () => {
  it('seals a lead with a key of its own that only its wrapped key opens; the record carries where the key is, never the key', () => {
    const at = new Date('2026-11-27T16:45:00.000Z');
    const { record, key } = sealedWithNewKey(
      { phone: '+4915112345678', email: 'ann@example.com', ip: '192.0.2.1', first_name: 'Ann', external_id: 'x' },
      keyring,
      createSecretKey(randomBytes(32)),
      at,
    );
    expect(key).toEqual({
      _id: expect.stringMatching(/^ik-2026112716-[0-9a-f]{24}$/),
      dek_enc: expect.stringMatching(/^k1\./),
      created_at: at,
    });
    expect(record.key_ref).toBe(key._id);
    expect(record.dek_enc).toBeUndefined();
    expect(JSON.stringify(record)).not.toContain(key.dek_enc);
    const cipher = leadCipher(keyring, key);
    expect(cipher.decrypt(record.phone_enc)).toBe('+4915112345678');
    expect(cipher.decrypt(record.email_enc as string)).toBe('ann@example.com');
    expect(openPersonal(cipher, record.personal_enc)).toMatchObject({ ip: '192.0.2.1', first_name: 'Ann' });
    // The keyring alone (what is left once the lead's key is destroyed) opens none of them.
    for (const sealed of [record.phone_enc, record.email_enc as string, record.personal_enc])
      expect(() => keyring.decrypt(sealed)).toThrow();
  });

  it("gives every lead a different key: one lead's key opens no other lead", () => {
    const a = newDataKey(keyring);
    const b = newDataKey(keyring);
    const sealed = a.cipher.encrypt('secret');
    expect(openDataKey(keyring, a.wrapped).decrypt(sealed)).toBe('secret');
    expect(() => openDataKey(keyring, b.wrapped).decrypt(sealed)).toThrow();
  });

  it('opens records from before per-lead keys with the keyring', () => {
    expect(leadCipher(keyring, {}).decrypt(keyring.encrypt('old'))).toBe('old');
  });
});

describe('retention cutoff', () => {
  it('is the instant N days before now', () => {
    expect(retentionCutoff(new Date('2026-11-23T10:00:00Z'), 30).toISOString()).toBe('2026-10-24T10:00:00.000Z');
  });
});

describe('sandbox marks', () => {
  const lead = (test?: true): Pick<LeadDoc, '_id' | 'partner_id' | 'external_id' | 'history' | 'test'> => ({
    _id: 'le-1',
    partner_id: 'pa-1',
    external_id: 'e',
    test,
    history: [
      {
        from: null,
        to: 'new',
        at: new Date(0),
        why: 'x',
        source: 'intake',
        event: 'lead.accepted',
        is_depositor: false,
      },
    ],
  });
  it("marks a sandbox lead's events test, and only those", () => {
    expect(eventForHistoryEntry(lead(true), 0)?.test).toBe(true);
    expect(eventForHistoryEntry(lead(), 0)).not.toHaveProperty('test');
  });
  it('labels metrics true or false', () => {
    expect(testLabel(true)).toBe('true');
    expect(testLabel(undefined)).toBe('false');
  });
});

import { sealedWithNewKey } from '../support/intake-commands';
import { createSecretKey, randomBytes } from 'node:crypto';
import { countryToCode, e164, normaliseLead } from '../../src/ingress/normalise-lead';
import { lookupHash } from '../../src/shared/crypto/lookup-hash';
import { openPersonal } from '../../src/shared/crypto/personal-data';
import { leadCipher } from '../../src/shared/crypto/data-key';
import { PiiCipher } from '../../src/shared/crypto/pii-cipher';
import type { InboundLead } from '../../src/shared/schemas';

const ctx = { idempotencyKey: 'idem-1', requestIp: '203.0.113.9' };
const normalise = (lead: InboundLead, c = ctx) => normaliseLead(lead, c);

describe('normaliseLead', () => {
  it('normalises phone to E.164, lower-cases email, derives country_code and full_name', () => {
    expect(
      normalise({
        phone: '+44 20 7946 0958',
        email: 'Ann.Lee@Example.COM',
        country: 'Germany',
        first_name: 'Ann',
        last_name: 'Lee',
      }),
    ).toEqual({
      ok: true,
      lead: {
        external_id: 'idem-1',
        phone: '+442079460958',
        email: 'ann.lee@example.com',
        country: 'Germany',
        country_code: 'DE',
        first_name: 'Ann',
        last_name: 'Lee',
        full_name: 'Ann Lee',
        ip: '203.0.113.9',
      },
    });
  });

  it('keeps what the partner sent when present', () => {
    // (the generated InboundLead type cannot express "a string in IPv4 or IPv6 format")
    const r = normalise({
      phone: '+14155552671',
      external_id: 'ext-9',
      full_name: 'A. Lee',
      first_name: 'Ann',
      ip: '198.51.100.7',
      country_code: 'us',
    } as InboundLead);
    expect(r).toEqual({
      ok: true,
      lead: {
        phone: '+14155552671',
        external_id: 'ext-9',
        full_name: 'A. Lee',
        first_name: 'Ann',
        ip: '198.51.100.7',
        country_code: 'US',
      },
    });
  });

  it('builds full_name from whichever name is present', () => {
    const r = normalise({ phone: '+14155552671', last_name: 'Lee' });
    expect(r.ok && r.lead.full_name).toBe('Lee');
  });

  it('stores an IPv4 client seen on a dual-stack socket as IPv4', () => {
    const r = normalise({ phone: '+14155552671' }, { ...ctx, requestIp: '::ffff:10.1.2.3' });
    expect(r.ok && r.lead.ip).toBe('10.1.2.3');
  });

  it.each([
    [{ phone: '4915112345678' }, 'invalid_format:phone'],
    [{ phone: '004915112345678' }, 'invalid_format:phone'],
    [{ phone: '+123' }, 'invalid_format:phone'],
    [{ phone: '+14155552671', country: 'Atlantis' }, 'invalid_value:country'],
    [{ phone: '+14155552671', country_code: 'XX' }, 'invalid_value:country_code'],
  ])('%j -> %s', (lead, reason) => {
    expect(normalise(lead as InboundLead)).toEqual({ ok: false, reason });
  });

  it('needs external_id when the Idempotency-Key is too long to stand in for it', () => {
    expect(normalise({ phone: '+14155552671' }, { ...ctx, idempotencyKey: 'k'.repeat(129) })).toEqual({
      ok: false,
      reason: 'missing_required:external_id',
    });
    expect(normalise({ phone: '+14155552671', external_id: 'e' }, { ...ctx, idempotencyKey: 'k'.repeat(129) }).ok).toBe(
      true,
    );
  });
});

describe('countryToCode and e164', () => {
  it.each([
    ['DE', 'DE'],
    ['de', 'DE'],
    ['DEU', 'DE'],
    ['Germany', 'DE'],
    ['United Kingdom', 'GB'],
    ['UK', 'GB'],
    ['United States', 'US'],
    ['Narnia', undefined],
  ])('%s -> %s', (input, code) => expect(countryToCode(input)).toBe(code));

  it('formats possible international numbers only', () => {
    expect(e164('+1 (415) 555-2671')).toBe('+14155552671');
    expect(e164('+7 916 123-45-67')).toBe('+79161234567');
    expect(e164('+44791112345612345')).toBeNull();
  });
});

describe('sealLead', () => {
  const key = randomBytes(32);
  const hashKey = createSecretKey(randomBytes(32));
  const cipher = new PiiCipher(new Map([['k1', key]]), 'k1');

  it('encrypts phone, email and the personal details, drops them in clear, carries no hash of them, and keys by a bucket of the phone hash', () => {
    const personal = {
      first_name: 'Ann',
      last_name: 'Lee',
      full_name: 'Ann Lee',
      ip: '10.0.0.1',
      user_agent: 'Agent/1',
      metadata: { ref: 'x' },
    };
    const {
      record,
      key: dataKey,
      bucket,
    } = sealedWithNewKey(
      { external_id: 'e', phone: '+14155552671', email: 'a@b.de', country_code: 'US', source: 'fb', ...personal },
      cipher,
      hashKey,
      new Date(),
    );
    // Sealed with the lead's own data key ("dek."), itself wrapped by the keyring ("k1.") and stored
    // apart: the record names it only.
    expect(dataKey.dek_enc).toMatch(/^k1\./);
    expect(record).toEqual({
      external_id: 'e',
      country_code: 'US',
      source: 'fb',
      key_ref: dataKey._id,
      phone_enc: expect.stringMatching(/^dek\./),
      email_enc: expect.stringMatching(/^dek\./),
      personal_enc: expect.stringMatching(/^dek\./),
    });
    expect(bucket).toBe(lookupHash(hashKey, 'phone', '+14155552671').slice(0, 3));
    const own = leadCipher(cipher, dataKey);
    expect(own.decrypt(record.phone_enc)).toBe('+14155552671');
    expect(own.decrypt(record.email_enc as string)).toBe('a@b.de');
    expect(openPersonal(own, record.personal_enc)).toEqual(personal);
    expect(JSON.stringify(record)).not.toMatch(/4155552671|a@b\.de|"Ann|"Lee|10\.0\.0\.1|Agent\/1|"ref"/);
  });

  it('has no email fields without an email', () => {
    const { record } = sealedWithNewKey(
      { external_id: 'e', phone: '+14155552671', ip: '10.0.0.1' },
      cipher,
      hashKey,
      new Date(),
    );
    expect(record).not.toHaveProperty('email_enc');
  });
});

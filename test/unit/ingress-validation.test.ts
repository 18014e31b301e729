import { isValidIdempotencyKey } from '../../src/ingress/idempotency';
import { readInboundLead } from '../../src/ingress/inbound-lead';
import { VALIDATION_REASONS } from '../../src/ingress/validation-reasons';

const read = (body: unknown, mapping: Record<string, string> = {}) => readInboundLead(body, mapping);
const reasonOf = (body: unknown, mapping: Record<string, string> = {}) => {
  const r = read(body, mapping);
  return r.ok ? null : r.reason;
};

describe('readInboundLead reasons', () => {
  it('accepts the recommended minimum', () => {
    expect(read({ phone: '+4915112345678', country: 'DE', source: 'fb', external_id: 'x-1' })).toEqual({
      ok: true,
      lead: { phone: '+4915112345678', country: 'DE', source: 'fb', external_id: 'x-1' },
    });
  });

  it.each([
    [{}, 'missing_required:phone'],
    [{ phone: '' }, 'missing_required:phone'],
    [{ phone: null }, 'missing_required:phone'],
    [{ phone: 4915112345678 }, 'invalid_type:phone'],
    [{ phone: '+4915112345678', metadata: 'x' }, 'invalid_type:metadata'],
    [{ phone: '+4915112345678', email: 'not-an-email' }, 'invalid_format:email'],
    [{ phone: '+4915112345678', ip: '300.1.1.1' }, 'invalid_format:ip'],
    [{ phone: '+4915112345678', landing_url: 'not a url' }, 'invalid_format:landing_url'],
    [{ phone: '+4915112345678', language: 'english' }, 'invalid_format:language'],
    [{ phone: '+4915112345678', country_code: 'DEU' }, 'invalid_format:country_code'],
    [{ phone: '+4915112345678', first_name: 'x'.repeat(101) }, 'too_long:first_name'],
    [{ phone: '+4915112345678', external_id: 'x'.repeat(129) }, 'too_long:external_id'],
    [
      { phone: '+4915112345678', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      'too_long:metadata',
    ],
    [{ phone: '+4915112345678', nickname: 'x' }, 'unknown_field:nickname'],
    // Not well-formed Unicode (a lone surrogate): in a value, in metadata's values and keys.
    [{ phone: '+4915112345678', click_id: '\ud800' }, 'invalid_format:click_id'],
    [{ phone: '+4915112345678', first_name: 'a\udc00b' }, 'invalid_format:first_name'],
    [{ phone: '+4915112345678', metadata: { note: ['ok', '\udbff'] } }, 'invalid_format:metadata'],
    [{ phone: '+4915112345678', metadata: { '\ud800': 1 } }, 'invalid_format:metadata'],
    [[{ phone: '+4915112345678' }], 'invalid_type:body'],
    ['text', 'invalid_type:body'],
    [null, 'invalid_type:body'],
  ])('%j -> %s', (body, expected) => {
    expect(reasonOf(body)).toBe(expected);
  });

  it('accepts paired surrogates (an emoji), NUL and bidi marks: well-formed Unicode', () => {
    expect(
      read({ phone: '+4915112345678', click_id: '\ud83d\ude00', first_name: 'a\u0000b', source: '\u202eevil' }).ok,
    ).toBe(true);
  });

  it('applies required fields to the mapped lead and names the canonical field', () => {
    expect(reasonOf({ contact: { tel: '' } }, { phone: 'contact.tel' })).toBe('missing_required:phone');
    expect(reasonOf({ contact: { tel: 123 } }, { phone: 'contact.tel' })).toBe('invalid_type:phone');
  });

  it('documents every reason kind it can give', () => {
    const kinds = Object.keys(VALIDATION_REASONS).map((k) => k.split(':')[0]);
    expect(kinds).toEqual([
      'missing_required',
      'invalid_type',
      'invalid_format',
      'invalid_value',
      'too_long',
      'unknown_field',
    ]);
  });
});

describe('isValidIdempotencyKey', () => {
  it.each([
    ['a', true],
    ['order-123:retry 2', true],
    ['x'.repeat(255), true],
    ['', false],
    ['x'.repeat(256), false],
    ['tab\there', false],
    ['naïve', false],
  ])('%j -> %s', (key, ok) => {
    expect(isValidIdempotencyKey(key)).toBe(ok);
  });
});

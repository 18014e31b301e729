import { CANONICAL_FIELDS, toCanonical, valueAt } from '../../src/ingress/field-mapping';

describe('toCanonical', () => {
  it('takes canonical fields from the same-named top-level keys when there is no mapping', () => {
    expect(toCanonical({ phone: '+4915112345678', first_name: 'Ann', source: 'fb' }, {})).toEqual({
      ok: true,
      lead: { phone: '+4915112345678', first_name: 'Ann', source: 'fb' },
    });
  });

  it("maps a partner's nested layout onto the canonical fields", () => {
    const body = {
      profile: { firstName: 'Ann', lastName: 'Lee' },
      contact: { phone: '+4915112345678', mail: 'a@b.de' },
      country: 'DE',
    };
    const mapping = {
      first_name: 'profile.firstName',
      last_name: 'profile.lastName',
      phone: 'contact.phone',
      email: 'contact.mail',
    };
    expect(toCanonical(body, mapping)).toEqual({
      ok: true,
      lead: { first_name: 'Ann', last_name: 'Lee', phone: '+4915112345678', email: 'a@b.de', country: 'DE' },
    });
  });

  it('reads a mapped field only from its path, not from a same-named top-level key', () => {
    expect(toCanonical({ phone: '+1', contact: { phone: '+4915112345678' } }, { phone: 'contact.phone' })).toEqual({
      ok: true,
      lead: { phone: '+4915112345678' },
    });
  });

  it('leaves a mapped field absent when its path is missing, so required fields apply to the result', () => {
    expect(toCanonical({ contact: {} }, { phone: 'contact.phone' })).toEqual({ ok: true, lead: {} });
  });

  it('refuses a top-level key that feeds no canonical field', () => {
    expect(toCanonical({ phone: '+4915112345678', age: 40 }, {})).toEqual({ ok: false, reason: 'unknown_field:age' });
    expect(toCanonical({ contact: { phone: 'x' }, extra: 1 }, { phone: 'contact.phone' })).toEqual({
      ok: false,
      reason: 'unknown_field:extra',
    });
  });

  it('treats null and blank strings as absent and trims the rest', () => {
    expect(toCanonical({ phone: ' +4915112345678 ', email: '', source: null, funnel: '   ' }, {})).toEqual({
      ok: true,
      lead: { phone: '+4915112345678' },
    });
  });

  it('keeps non-string values for the schema to judge', () => {
    expect(toCanonical({ phone: 4915112345678, metadata: { a: 1 } }, {})).toEqual({
      ok: true,
      lead: { phone: 4915112345678, metadata: { a: 1 } },
    });
  });

  it('lists the fields of schemas/inbound-lead.json', () => {
    expect(CANONICAL_FIELDS).toEqual(
      expect.arrayContaining(['external_id', 'phone', 'email', 'country', 'country_code', 'metadata']),
    );
    expect(CANONICAL_FIELDS).toHaveLength(17);
  });
});

describe('valueAt', () => {
  it('walks own properties only', () => {
    const body = JSON.parse('{"a":{"b":{"c":"x"}},"__proto__":{"polluted":"y"}}') as Record<string, unknown>;
    expect(valueAt(body, 'a.b.c')).toBe('x');
    expect(valueAt(body, 'a.constructor')).toBeUndefined();
    expect(valueAt(body, '__proto__.polluted')).toBe('y');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('does not index into arrays or scalars', () => {
    expect(valueAt({ a: ['x'] }, 'a.0')).toBeUndefined();
    expect(valueAt({ a: 'text' }, 'a.length')).toBeUndefined();
  });
});

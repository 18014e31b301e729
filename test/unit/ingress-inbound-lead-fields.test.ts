import { readInboundLead } from '../../src/ingress/inbound-lead';

// The fields of spec 2.2, row for row: each optional string takes a string and refuses any other
// type naming the field; phone is the one required field; metadata is any object.
const PHONE = '+4915112345678';
const OPTIONAL_STRINGS = [
  ['external_id', 'ext-1'],
  ['first_name', 'Ann'],
  ['last_name', 'Lee'],
  ['full_name', 'Ann Lee'],
  ['email', 'ann@example.com'],
  ['country', 'DE'],
  ['country_code', 'DE'],
  ['language', 'de'],
  ['ip', '203.0.113.9'],
  ['user_agent', 'Mozilla/5.0'],
  ['source', 'fb'],
  ['funnel', 'spring'],
  ['sub_id', 's-1'],
  ['click_id', 'c-1'],
  ['landing_url', 'https://land.example/form?x=1'],
] as const;

describe('an inbound lead (spec 2.2)', () => {
  it.each(OPTIONAL_STRINGS)('takes %s as an optional string, and no other type', (field, value) => {
    expect(readInboundLead({ phone: PHONE, [field]: value }, {})).toEqual({
      ok: true,
      lead: { phone: PHONE, [field]: value },
    });
    expect(readInboundLead({ phone: PHONE, [field]: 5 }, {})).toEqual({ ok: false, reason: `invalid_type:${field}` });
  });

  it('needs phone, a string', () => {
    expect(readInboundLead({ external_id: 'ext-1' }, {})).toEqual({ ok: false, reason: 'missing_required:phone' });
    expect(readInboundLead({ phone: 4915112345678 }, {})).toEqual({ ok: false, reason: 'invalid_type:phone' });
  });

  it('takes metadata as any object, nested included, and no other type', () => {
    const metadata = { campaign: 'spring', utm: { medium: 'cpc', terms: ['a', 'b'] } };
    expect(readInboundLead({ phone: PHONE, metadata }, {})).toEqual({ ok: true, lead: { phone: PHONE, metadata } });
    expect(readInboundLead({ phone: PHONE, metadata: ['x'] }, {})).toEqual({
      ok: false,
      reason: 'invalid_type:metadata',
    });
  });
});

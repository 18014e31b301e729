import { ipCountry, subnetOf } from '../../src/processor/ip-facts';
import { isDisposableEmail } from '../../src/processor/risk-assessment';
import { assessRisk, overRiskThreshold, RISK_POINTS, type RiskFacts } from '../../src/processor/risk-signals';

const limits = { perIp: 3, perSubnet: 10 };
const facts = (over: Partial<RiskFacts> = {}): RiskFacts => ({
  ipCountry: 'DE',
  phoneCountry: 'DE',
  declaredCountry: 'DE',
  disposableEmail: false,
  leadsFromIp: 1,
  leadsFromSubnet: 1,
  ...over,
});

describe('fraud signals', () => {
  it('scores a consistent lead 0 with no reasons and keeps the IP country', () =>
    expect(assessRisk(facts(), limits)).toEqual({ score: 0, reasons: [], ip_country: 'DE' }));

  it.each([
    [
      'the IP country against the phone country',
      { phoneCountry: 'GB', declaredCountry: 'GB' },
      ['ip_country_mismatch_phone', 'ip_country_mismatch_declared'],
    ],
    [
      'the IP country against the declared country',
      { declaredCountry: 'FR' },
      ['ip_country_mismatch_declared', 'phone_country_mismatch_declared'],
    ],
    [
      'the phone country against the declared country only',
      { ipCountry: null, phoneCountry: 'GB' },
      ['phone_country_mismatch_declared'],
    ],
    ['a disposable email domain', { disposableEmail: true }, ['disposable_email']],
    ['a burst from one IP', { leadsFromIp: 4, leadsFromSubnet: 4 }, ['ip_burst']],
    ['a burst from one subnet', { leadsFromIp: 1, leadsFromSubnet: 11 }, ['subnet_burst']],
  ])('flags %s', (_name, over, reasons) => {
    const risk = assessRisk(facts(over), limits);
    expect(risk.reasons).toEqual(reasons);
    expect(risk.score).toBe(reasons.reduce((s, r) => s + RISK_POINTS[r as keyof typeof RISK_POINTS], 0));
  });

  it('never counts an unknown country as a mismatch', () => {
    expect(assessRisk(facts({ ipCountry: null, phoneCountry: null, declaredCountry: 'US' }), limits).reasons).toEqual(
      [],
    );
    expect(assessRisk(facts({ declaredCountry: null }), limits).reasons).toEqual([]);
  });

  it('counts a burst only above the limit (the limit itself is fine)', () => {
    expect(assessRisk(facts({ leadsFromIp: 3, leadsFromSubnet: 10 }), limits).reasons).toEqual([]);
  });

  it('caps the score at 100', () => {
    const risk = assessRisk(
      facts({ ipCountry: 'US', phoneCountry: 'GB', disposableEmail: true, leadsFromIp: 9, leadsFromSubnet: 99 }),
      limits,
    );
    expect(risk.reasons).toHaveLength(6);
    expect(risk.score).toBe(100);
  });

  it('rejects at or above a threshold, never without one', () => {
    expect(overRiskThreshold({ score: 50 }, 50)).toBe(true);
    expect(overRiskThreshold({ score: 49 }, 50)).toBe(false);
    expect(overRiskThreshold({ score: 100 }, null)).toBe(false);
    expect(overRiskThreshold({ score: 100 }, undefined)).toBe(false);
  });
});

describe('IP facts', () => {
  it('finds the country of public IPv4, IPv6 and IPv4-mapped addresses from the shipped data', () => {
    expect(ipCountry('8.8.8.8')).toBe('US');
    expect(ipCountry('81.2.69.142')).toBe('GB');
    expect(ipCountry('2001:4860:4860::8888')).toBe('US');
    expect(ipCountry('::ffff:8.8.8.8')).toBe('US');
  });

  it('has no country for private, loopback or malformed addresses', () => {
    for (const ip of ['10.1.2.3', '127.0.0.1', '::1', 'not-an-ip']) expect(ipCountry(ip)).toBeNull();
  });

  it('groups IPv4 by /24 and IPv6 by /48, a mapped address as its IPv4', () => {
    expect(subnetOf('198.51.100.7')).toBe('198.51.100.0/24');
    expect(subnetOf('::ffff:198.51.100.9')).toBe('198.51.100.0/24');
    expect(subnetOf('2001:db8:abcd:12::1')).toBe(subnetOf('2001:db8:abcd:ffff::2'));
    expect(subnetOf('2001:db8:abcd:12::1')).not.toBe(subnetOf('2001:db8:abce::1'));
    expect(subnetOf('nope')).toBeNull();
  });
});

describe('isDisposableEmail', () => {
  it('reads the domain after the last @, whatever its case, against the maintained list (built once)', () => {
    expect(isDisposableEmail('someone@mailinator.com')).toBe(true);
    expect(isDisposableEmail('Some.One@MAILINATOR.COM')).toBe(true);
    expect(isDisposableEmail('"odd@name"@mailinator.com')).toBe(true);
    expect(isDisposableEmail('ann.lee@example.com')).toBe(false);
    expect(isDisposableEmail('no-at-sign')).toBe(false);
  });
});

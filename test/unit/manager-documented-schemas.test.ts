import fc from 'fast-check';
import { DOCUMENTED_PUBLIC_URL, documentedTemplate } from '../../src/manager/documented-urls';
import { asDocumented, stricterInDocument } from '../../src/shared/http/schema-parts';
import { DOCUMENTED_TIME_ZONES, documentTimeZones } from '../../src/manager/time-zone-setting';
import { isKnownTimeZone } from '../../src/shared/local-time';
import { templateProblem } from '../../src/shared/postbacks/postback-template';

// What the documents promise beyond what the routes validate must be what the server takes: a
// request the document allows is never refused for these rules.
describe("the documents' stricter shapes", () => {
  it("every template of the documented shape passes the preview's checks (with a postback token)", () => {
    const pattern = new RegExp(documentedTemplate(false).pattern, 'u');
    fc.assert(
      fc.property(fc.stringMatching(pattern), (t) => templateProblem(t, { allowHttp: false, tokenSet: true }) === null),
      { numRuns: 5000 },
    );
    expect(pattern.test('https://t.example:8443/pb?cid={click_id}&s={status}#{event}')).toBe(true);
    for (const refused of [
      'https://t.example/pb?x={amount}',
      'https://{source}.t.example/',
      'https://t.example.123/',
      'https://t.example:65536/',
      'http://t.example/',
    ]) {
      expect(pattern.test(refused)).toBe(false);
    }
    expect(new RegExp(documentedTemplate(true).pattern, 'u').test('http://t.example/pb')).toBe(true);
  });

  it('a documented callback URL parses and names a host name other than localhost', () => {
    const pattern = new RegExp(DOCUMENTED_PUBLIC_URL.pattern, 'u');
    for (const taken of [
      'https://partner.example/cb',
      'https://api-1.partner.example:8443/cb?x=1',
      'https://localhost.example/cb',
    ])
      expect(pattern.test(taken)).toBe(true);
    for (const left of [
      'https://localhost/cb',
      'https://a.LocalHost:443/',
      'https://10.0.0.1/cb',
      'https://a.123/',
      'https://[::1]/',
      'https://xn--a.example/',
      'https://a b.example/',
    ]) {
      expect(pattern.test(left)).toBe(false);
    }
  });

  it('every documented time zone is one the server computes in, and the settings components list them', () => {
    expect(DOCUMENTED_TIME_ZONES).toContain('UTC');
    expect(DOCUMENTED_TIME_ZONES.filter((z) => !isKnownTimeZone(z))).toEqual([]);
    const zone = { type: 'string', maxLength: 64 };
    const validated = { properties: { time_zone: zone, name: { type: 'string' } } };
    const components: Record<string, unknown> = { PartnerSettings: validated };
    documentTimeZones(components, ['PartnerSettings']);
    expect(components.PartnerSettings).toEqual({
      properties: { time_zone: { ...zone, enum: DOCUMENTED_TIME_ZONES }, name: { type: 'string' } },
    });
    expect(validated.properties.time_zone).toEqual({ type: 'string', maxLength: 64 }); // the schema routes validate with is left alone
    expect(() => documentTimeZones(components, ['AgentSettings'])).toThrow('AgentSettings');
  });

  it('a route documents the stricter body and validates the other', () => {
    const route = stricterInDocument(
      { summary: 's', body: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } } },
      { a: { type: 'string', maxLength: 3 } },
    );
    expect(route.body).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } });
    expect(asDocumented(route)).toEqual({
      summary: 's',
      body: { type: 'object', properties: { a: { type: 'string', maxLength: 3 }, b: { type: 'integer' } } },
    });
    expect(asDocumented({ summary: 's' })).toEqual({ summary: 's' });
  });
});

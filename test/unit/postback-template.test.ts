import {
  fillTemplate,
  postbackFor,
  postbackValues,
  templateProblem,
  POSTBACK_MACROS,
} from '../../src/shared/postbacks/postback-template';
import type { LeadEvent } from '../../src/shared/schemas';

const rules = { allowHttp: false, tokenSet: true };
const event: LeadEvent = {
  event_id: 'le-7:2',
  event: 'lead.ftd',
  lead_id: 'le-7',
  partner_id: 'pa-1',
  external_lead_id: 'e 1',
  our_status: 'ftd',
  is_depositor: true,
  occurred_at: '2026-11-25T10:00:00.000Z',
  tracking: { click_id: 'c&1' },
};

describe('templateProblem', () => {
  it('accepts every known macro in the path and query of an https URL', () => {
    expect(
      templateProblem(`https://t.example/pb/{event}?${POSTBACK_MACROS.map((m) => `${m}={${m}}`).join('&')}`, rules),
    ).toBeNull();
  });
  it.each([
    ['{amount}', 'money'],
    ['{Currency}', 'money'],
    ['{deposit_amount}', 'money'],
    ['{payout}', 'money'],
    ['{phone}', 'personal data'],
    ['{email}', 'personal data'],
    ['{first_name}', 'personal data'],
    ['{ip}', 'personal data'],
    ['{foo}', 'unknown macro {foo}'],
  ])('refuses %s, naming it (%s)', (macro, why) => {
    const problem = templateProblem(`https://t.example/pb?x=${macro}`, rules);
    expect(problem).toContain(macro);
    expect(problem).toContain(why);
  });
  it('refuses http unless allowed, credentials, a macro in the host, a stray brace and {token} without a token', () => {
    expect(templateProblem('http://t.example/pb', rules)).toBe('must be an https URL');
    expect(templateProblem('http://t.example/pb', { ...rules, allowHttp: true })).toBeNull();
    expect(templateProblem('https://u:p@t.example/pb', rules)).toBe('must not carry credentials');
    expect(templateProblem('https://{source}.t.example/pb', rules)).toContain('host');
    expect(templateProblem('https://t.example:{unix_ts}/pb', rules)).toContain('host');
    expect(templateProblem('https://t.example/pb?x={event', rules)).toContain('not part of a {macro}');
    expect(templateProblem('https://t.example/pb?t={token}', { ...rules, tokenSet: false })).toContain(
      'no postback token',
    );
    expect(templateProblem('not a url {event}', rules)).toBe('is not a URL');
  });
});

describe('filling', () => {
  it('URL-encodes every value and masks the token in the recorded URL', () => {
    const values = postbackValues(event, { ftd: 'sale' }, 'to&ken');
    const filled = fillTemplate(
      'https://t.example/pb?s={status}&c={click_id}&x={external_id}&d={is_depositor}&u={unix_ts}&sub={sub_id}&t={token}',
      values,
    );
    expect(filled.url).toBe('https://t.example/pb?s=sale&c=c%261&x=e%201&d=1&u=1795600800&sub=&t=to%26ken');
    expect(filled.masked).toBe('https://t.example/pb?s=sale&c=c%261&x=e%201&d=1&u=1795600800&sub=&t=***');
  });
  it('sends a status with no mapping unchanged, and is_depositor as 0 or 1', () => {
    const values = postbackValues({ ...event, our_status: 'constructor', is_depositor: false }, {}, null);
    expect(values).toMatchObject({ status: 'constructor', our_status: 'constructor', is_depositor: '0', token: '' });
  });
});

describe('postbackFor', () => {
  const postbacks = {
    url: 'https://t.example/all',
    status_mapping: { ftd: 'deposit' },
    templates: [{ event: 'lead.ftd' as const, url: 'https://t.example/ftd', status_mapping: { ftd: 'sale' } }],
  };
  it("takes the event's own template and mapping first, then the default ones, then the partner's mapping", () => {
    expect(postbackFor(postbacks, { ftd: 'p' }, 'lead.ftd')).toEqual({
      template: 'https://t.example/ftd',
      statusMapping: { ftd: 'sale' },
    });
    expect(postbackFor(postbacks, { ftd: 'p' }, 'lead.rtd')).toEqual({
      template: 'https://t.example/all',
      statusMapping: { ftd: 'deposit' },
    });
    expect(postbackFor({ url: 'https://t.example/all' }, { ftd: 'p' }, 'lead.rtd')?.statusMapping).toEqual({
      ftd: 'p',
    });
  });
  it('sends nothing without postbacks, for an event off the whitelist, or without a template for it', () => {
    expect(postbackFor(null, {}, 'lead.ftd')).toBeNull();
    expect(postbackFor({ ...postbacks, events: ['lead.accepted'] }, {}, 'lead.ftd')).toBeNull();
    expect(postbackFor({ templates: postbacks.templates }, {}, 'lead.accepted')).toBeNull();
  });
});

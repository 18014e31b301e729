import { callbackEligibility } from '../../src/dispatcher/lead-owner/rounds';
import { buildCallbackPayload } from '../../src/dispatcher/delivery-wire';
import { findMoneyField } from '../../src/dispatcher/delivery-wire/money-guard';
import type { LeadEvent } from '../../src/shared/schemas';

const event = (over: Partial<LeadEvent> = {}): LeadEvent => ({
  event_id: 'le-7:0',
  event: 'lead.accepted',
  lead_id: 'le-7',
  partner_id: 'pa-1',
  external_lead_id: 'ext-7',
  our_status: 'new',
  is_depositor: false,
  occurred_at: '2026-11-22T02:00:00.000Z',
  ...over,
});

describe('callback payload (spec 2.4)', () => {
  it('carries exactly the spec fields, in a fixed order', () => {
    expect(JSON.stringify(buildCallbackPayload(event(), {}))).toBe(
      '{"event":"lead.accepted","external_lead_id":"ext-7","internal_id":"le-7","status":"new","our_status":"new","is_depositor":false,"timestamp":"2026-11-22T02:00:00.000Z"}',
    );
  });
  it('maps status through status_mapping and keeps our_status canonical', () => {
    const p = buildCallbackPayload(event({ event: 'lead.ftd', our_status: 'ftd', is_depositor: true }), {
      ftd: 'DEPOSITED',
      new: 'N',
    });
    expect(p).toMatchObject({ status: 'DEPOSITED', our_status: 'ftd', is_depositor: true });
  });
  it('sends a code with no mapping entry unchanged', () =>
    expect(buildCallbackPayload(event(), { ftd: 'X' }).status).toBe('new'));
  it('ignores inherited keys of the mapping object', () =>
    expect(buildCallbackPayload(event({ our_status: 'constructor' }), {}).status).toBe('constructor'));
  it('puts reason on lead.rejected only', () => {
    expect(
      buildCallbackPayload(event({ event: 'lead.rejected', our_status: 'rejected', reason: 'country_blocked:RU' }), {})
        .reason,
    ).toBe('country_blocked:RU');
    expect(buildCallbackPayload(event({ reason: 'stray' }), {})).not.toHaveProperty('reason');
  });
  it('puts from_status on lead.status_changed only, canonical', () => {
    const changed = buildCallbackPayload(
      event({ event: 'lead.status_changed', our_status: 'contacted', from_status: 'new' }),
      { new: 'N', contacted: 'C' },
    );
    expect(changed).toMatchObject({ status: 'C', our_status: 'contacted', from_status: 'new' });
    expect(buildCallbackPayload(event({ from_status: 'new' }), {})).not.toHaveProperty('from_status');
  });
  it('gives the event time as ISO 8601 with a UTC offset, whatever offset it came with', () =>
    expect(buildCallbackPayload(event({ occurred_at: '2026-11-22T04:00:00+02:00' }), {}).timestamp).toBe(
      '2026-11-22T02:00:00.000Z',
    ));
});

describe('money guard', () => {
  it('passes a status-only payload', () => expect(findMoneyField(buildCallbackPayload(event(), {}))).toBeNull());
  it('finds every money field at any depth, in objects and arrays', () => {
    expect(findMoneyField({ amount: '1' })).toBe('amount');
    expect(findMoneyField({ a: { b: { currency: 'EUR' } } })).toBe('a.b.currency');
    expect(findMoneyField({ list: [{}, { ftd_amount: 1 }] })).toBe('list[1].ftd_amount');
    expect(findMoneyField({ rtd_amount: null })).toBe('rtd_amount');
    expect(findMoneyField({ Deposit_Amount: 3 })).toBe('Deposit_Amount');
  });
  it('does not mistake values for keys', () =>
    expect(findMoneyField({ status: 'amount', reason: 'currency' })).toBeNull());
});

describe('callback eligibility (spec 6.2)', () => {
  it('needs a callback URL', () =>
    expect(callbackEligibility({ callback_url: null, callback_events: [] }, 'lead.accepted')).toBe('no_callback_url'));
  it('sends every event when the whitelist is empty or absent', () => {
    expect(callbackEligibility({ callback_url: 'https://p.example/cb', callback_events: [] }, 'lead.rtd')).toBe('send');
    expect(callbackEligibility({ callback_url: 'https://p.example/cb' }, 'lead.rtd')).toBe('send');
  });
  it('sends only whitelisted events otherwise', () => {
    const partner = { callback_url: 'https://p.example/cb', callback_events: ['lead.ftd' as const] };
    expect(callbackEligibility(partner, 'lead.ftd')).toBe('send');
    expect(callbackEligibility(partner, 'lead.accepted')).toBe('not_in_whitelist');
  });
});

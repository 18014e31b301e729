import { rejectionReason, type RuledLead } from '../../src/processor/business-rules';
import { chooseAgent, type RankedAgent } from '../../src/processor/agent-choice';
import { eventForHistoryEntry, eventsOf } from '../../src/processor/lead-events';
import type { LeadDoc } from '../../src/shared/mongo/documents';

const record = (over: Partial<RuledLead> = {}): RuledLead => ({
  ip: '203.0.113.9',
  country_code: 'DE',
  source: 'google',
  risk: { score: 0 },
  ...over,
});
const none = { blockedCountries: [], blockedSources: [], blockedIpRanges: [] };

describe('business rules', () => {
  it('passes a lead no rule blocks', () => expect(rejectionReason(record(), none, {})).toBeNull());
  it('blocks a country globally or per partner', () => {
    expect(rejectionReason(record(), { ...none, blockedCountries: ['DE'] }, {})).toBe('country_blocked:DE');
    expect(rejectionReason(record(), none, { blockedCountries: ['DE'] })).toBe('country_blocked:DE');
  });
  it('blocks a source, case-insensitively', () =>
    expect(rejectionReason(record(), none, { blockedSources: ['Google'] })).toBe('source_blocked'));
  it('blocks IP ranges and single addresses, v4 and v6', () => {
    expect(rejectionReason(record(), { ...none, blockedIpRanges: ['203.0.113.0/24'] }, {})).toBe('ip_blocked');
    expect(rejectionReason(record(), none, { blockedIpRanges: ['203.0.113.9'] })).toBe('ip_blocked');
    expect(rejectionReason(record({ ip: '2001:db8::1' }), none, { blockedIpRanges: ['2001:db8::/32'] })).toBe(
      'ip_blocked',
    );
    expect(rejectionReason(record(), none, { blockedIpRanges: ['198.51.100.0/24'] })).toBeNull();
  });
  it("rejects at or above the partner's risk threshold, never without one", () => {
    expect(rejectionReason(record({ risk: { score: 60 } }), none, { riskThreshold: 60 })).toBe('risk_rejected');
    expect(rejectionReason(record({ risk: { score: 59 } }), none, { riskThreshold: 60 })).toBeNull();
    expect(rejectionReason(record({ risk: { score: 100 } }), none, { riskThreshold: null })).toBeNull();
    expect(rejectionReason(record({ risk: { score: 100 } }), none, {})).toBeNull();
  });
  it('names a blocked country before the risk', () =>
    expect(
      rejectionReason(record({ risk: { score: 100 } }), { ...none, blockedCountries: ['DE'] }, { riskThreshold: 1 }),
    ).toBe('country_blocked:DE'));
});

const agent = (id: string, over: Partial<RankedAgent> = {}): RankedAgent => ({
  _id: id,
  name: id,
  active: true,
  countries: [],
  languages: [],
  turn: 0,
  created_at: new Date(0),
  updated_at: new Date(0),
  ...over,
});

describe('agent choice', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  it('takes the eligible agent whose last lead came earliest, never-assigned first', () => {
    const agents = [agent('ag-b', { turn: 2 }), agent('ag-a', { turn: 1 }), agent('ag-c')];
    expect(chooseAgent(agents, {}, now)?._id).toBe('ag-c');
    expect(chooseAgent(agents.slice(0, 2), {}, now)?._id).toBe('ag-a');
  });
  it('respects country and language lists and the active flag', () => {
    const agents = [
      agent('ag-fr', { countries: ['FR'] }),
      agent('ag-en', { languages: ['en'] }),
      agent('ag-off', { active: false }),
    ];
    expect(chooseAgent(agents, { country_code: 'FR', language: 'de' }, now)?._id).toBe('ag-fr');
    expect(chooseAgent(agents, { country_code: 'DE', language: 'en-GB' }, now)?._id).toBe('ag-en');
    expect(chooseAgent(agents, { country_code: 'DE', language: 'de' }, now)).toBeNull();
  });
});

describe('lead events', () => {
  const at = new Date('2026-11-22T02:00:00Z');
  const lead: Pick<LeadDoc, '_id' | 'partner_id' | 'external_id' | 'history'> = {
    _id: 'le-7',
    partner_id: 'pa-1',
    external_id: 'ext-7',
    history: [
      { from: null, to: 'new', at, why: '', source: 'intake', event: 'lead.accepted', is_depositor: false },
      {
        from: 'new',
        to: 'assigned',
        at,
        why: '',
        source: 'distribution',
        event: 'lead.status_changed',
        is_depositor: false,
      },
      { from: 'contacted', to: 'ftd', at, why: '', source: 'deposit:d1', event: 'lead.ftd', is_depositor: true },
    ],
  };
  it('gives deterministic ids and from_status only on status changes', () => {
    expect(eventForHistoryEntry(lead, 0)).toEqual({
      event_id: 'le-7:0',
      event: 'lead.accepted',
      lead_id: 'le-7',
      partner_id: 'pa-1',
      external_lead_id: 'ext-7',
      our_status: 'new',
      is_depositor: false,
      occurred_at: '2026-11-22T02:00:00.000Z',
    });
    expect(eventForHistoryEntry(lead, 1)).toMatchObject({ event_id: 'le-7:1', from_status: 'new' });
    expect(eventForHistoryEntry(lead, 2)).not.toHaveProperty('from_status');
    expect(eventForHistoryEntry(lead, 2)).toMatchObject({ event: 'lead.ftd', is_depositor: true });
  });
  it("carries the lead's non-empty tracking fields, for postback macros, and nothing personal", () => {
    const tracked = { ...lead, click_id: 'c-1', sub_id: '', source: 'fb', funnel: undefined } as unknown as LeadDoc;
    expect(eventForHistoryEntry(tracked, 0)?.tracking).toEqual({ click_id: 'c-1', source: 'fb' });
    expect(eventForHistoryEntry(lead, 0)).not.toHaveProperty('tracking');
  });
  it('lists the events of the entries from a given one on: what a change added', () => {
    expect(eventsOf(lead, 1).map((e) => e.event_id)).toEqual(['le-7:1', 'le-7:2']);
    expect(eventsOf(lead).map((e) => e.event_id)).toEqual(['le-7:0', 'le-7:1', 'le-7:2']);
  });
});

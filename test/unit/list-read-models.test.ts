import fc from 'fast-check';
import { auditListEntries, auditListPrefix } from '../../src/shared/audit';
import type { LeadDoc } from '../../src/shared/mongo/documents';
import {
  deliveryEntries,
  deliveryListPrefixes,
  LEAD_EVENT_NAMES,
  stateEntries,
} from '../../src/shared/store/delivery-list';
import { leadListEntries, leadListMoves, leadListPrefix } from '../../src/shared/store/lead-list';
import { CURSOR_PATTERN, entryId, keyPart, listPrefix, suffixOfEntry } from '../../src/shared/store/list-index';

// The keys of the list read models: what makes a page one _id range in the view's order.
describe('list keys', () => {
  it('escapes any key part to characters that order by string order in both stores and hold no separator', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(keyPart(s)).toMatch(/^[A-Za-z0-9%._-]*$/);
        expect(decodeURIComponent(keyPart(s))).toBe(s);
      }),
    );
    expect(keyPart('social|ads')).toBe('social%7Cads');
    expect(keyPart("it's (new)!~*")).toBe('it%27s%20%28new%29%21%7E%2A');
    expect(keyPart('pa-0123abcd')).toBe('pa-0123abcd');
    expect(keyPart('a\ud800b\udc00')).toBe('a%EF%BF%BDb%EF%BF%BD'); // lone surrogates: U+FFFD, never a throw
    expect(keyPart('\ud83d\ude00')).toBe('%F0%9F%98%80');
  });

  it('orders the entries of one prefix by time, then item id', () => {
    const prefix = listPrefix('dp', 'pa-1', 'lead.accepted');
    const ids = [
      entryId({ prefix, at: new Date('2026-11-24T10:00:00.000Z'), ref: 'dl-b' }),
      entryId({ prefix, at: new Date('2026-11-24T09:59:59.999Z'), ref: 'dl-z' }),
      entryId({ prefix, at: new Date('2026-11-24T10:00:00.000Z'), ref: 'dl-a' }),
    ];
    expect([...ids].sort()).toEqual([ids[1], ids[2], ids[0]]);
    expect(suffixOfEntry({ _id: ids[0]! })).toBe('2026-11-24T10:00:00.000Z|dl-b');
  });

  it('takes as a cursor exactly the ends of entries', () => {
    const cursor = new RegExp(CURSOR_PATTERN);
    expect(
      cursor.test(
        suffixOfEntry({
          _id: entryId({ prefix: 'dp|pa-1|lead.ftd', at: new Date(), ref: 'dl-1', tie: 'le-7:000002' }),
        }),
      ),
    ).toBe(true);
    for (const bad of ['le-12', '2026-11-24T10:00:00.000Z|le-12|x', '2026-11-24T10:00:00Z|le-12', '0'])
      expect(cursor.test(bad)).toBe(false);
  });
});

describe('delivery list', () => {
  const record = {
    _id: 'dl-1',
    created_at: new Date('2026-11-24T10:00:00.000Z'),
    event: { event: 'lead.ftd' as const, event_id: 'le-7:2', partner_id: 'pa-1', lead_id: 'le-7' },
  };

  it('lists a delivery four ways, two of them by its state', () => {
    const entries = deliveryEntries({ ...record, state: 'dead' });
    expect(entries.map((e) => e.prefix)).toEqual([
      'd|lead.ftd',
      'dp|pa-1|lead.ftd',
      'ds|dead|lead.ftd',
      'dsp|dead|pa-1|lead.ftd',
    ]);
    expect(stateEntries(record, 'queued').map((e) => e.prefix)).toEqual([
      'ds|queued|lead.ftd',
      'dsp|queued|pa-1|lead.ftd',
    ]);
  });

  it("orders one lead's records of the same millisecond by event", () => {
    const of = (n: number) =>
      entryId(
        deliveryEntries({
          ...record,
          _id: `dl-${n}`,
          event: { ...record.event, event_id: `le-7:${n}` },
          state: 'delivered',
        })[0]!,
      );
    expect([of(10), of(9), of(2)].sort()).toEqual([of(2), of(9), of(10)]);
    expect(of(2)).toBe('d|lead.ftd|2026-11-24T10:00:00.000Z|le-7%3A000002');
  });

  it("keeps an event's postback apart from its callback when both are recorded in the same millisecond", () => {
    const callback = deliveryEntries({ ...record, state: 'delivered' }).map(entryId);
    const postback = deliveryEntries({ ...record, _id: 'dl-2', kind: 'postback', state: 'delivered' }).map(entryId);
    expect(postback.filter((id) => callback.includes(id))).toEqual([]);
    expect(postback[0]).toBe('d|lead.ftd|2026-11-24T10:00:00.000Z|le-7%3A000002%3Apostback');
    expect([postback[0], callback[0]].sort()).toEqual([callback[0], postback[0]]);
  });

  it('reads one range per event name unless the event is filtered on', () => {
    expect(deliveryListPrefixes({ state: 'dead', partnerId: 'pa-1', event: 'lead.rtd' })).toEqual([
      'dsp|dead|pa-1|lead.rtd',
    ]);
    expect(deliveryListPrefixes({ state: 'dead' })).toEqual(LEAD_EVENT_NAMES.map((e) => `ds|dead|${e}`));
    expect(deliveryListPrefixes({})).toHaveLength(5);
  });
});

describe('lead list', () => {
  const lead = {
    _id: 'le-1',
    partner_id: 'pa-1',
    status: 'new',
    is_depositor: false,
    agent_id: null,
    created_at: new Date('2026-11-24T10:00:00.000Z'),
    country_code: 'DE',
    source: 'search',
    sub_id: 's-17',
  } as Pick<
    LeadDoc,
    '_id' | 'partner_id' | 'status' | 'is_depositor' | 'agent_id' | 'created_at' | 'country_code' | 'source' | 'sub_id'
  >;

  it('lists a new lead by partner and status, and by agent once it has one', () => {
    expect(leadListEntries(lead).map((e) => e.prefix)).toEqual(['l', 'lp|pa-1', 'ls|new', 'lps|pa-1|new']);
    expect(leadListEntries({ ...lead, agent_id: 'ag-1' }).map((e) => e.prefix)).toContain('la|ag-1');
    // The routing fields a list filters on ride on every entry (null where the lead has none).
    expect(leadListEntries(lead)[0]!.fields).toEqual({
      country_code: 'DE',
      source: 'search',
      sub_id: 's-17',
      click_id: null,
    });
  });

  it('moves a lead between status and agent views, and adds it to the depositors for good', () => {
    const assigned = { ...lead, status: 'assigned', agent_id: 'ag-1' };
    expect(leadListMoves(lead, assigned)).toEqual({
      put: [...leadListEntries(assigned).filter((e) => /^(ls|lps|la)\|/.test(e.prefix))],
      remove: leadListEntries(lead).filter((e) => /^(ls|lps)\|/.test(e.prefix)),
    });
    const ftd = { ...assigned, status: 'ftd', is_depositor: true };
    expect(leadListMoves(assigned, ftd).put.map((e) => e.prefix)).toEqual(['ls|ftd', 'lps|pa-1|ftd', 'ld', 'lpd|pa-1']);
    expect(leadListMoves(ftd, { ...ftd, status: 'chargeback' }).put.map((e) => e.prefix)).toEqual([
      'ls|chargeback',
      'lps|pa-1|chargeback',
    ]);
    expect(leadListMoves(assigned, { ...assigned, agent_id: 'ag-2' })).toMatchObject({
      put: [expect.objectContaining({ prefix: 'la|ag-2' })],
      remove: [expect.objectContaining({ prefix: 'la|ag-1' })],
    });
    expect(leadListMoves(assigned, assigned)).toEqual({ put: [], remove: [] });
  });

  it('reads the entries that cover most of the filter', () => {
    expect(leadListPrefix({ agentId: 'ag-1', partnerId: 'pa-1' })).toBe('la|ag-1');
    expect(leadListPrefix({ partnerId: 'pa-1', status: 'ftd', isDepositor: true })).toBe('lps|pa-1|ftd');
    expect(leadListPrefix({ isDepositor: true })).toBe('ld');
    expect(leadListPrefix({})).toBe('l');
  });
});

describe('audit list', () => {
  it('lists an entry by partner, by action and by both', () => {
    const doc = {
      _id: 'au-1',
      at: new Date(),
      actor: 'token:x',
      action: 'partner.update',
      partner_id: 'pa-1',
      target: null,
      details: {},
    };
    expect(auditListEntries(doc).map((e) => e.prefix)).toEqual([
      'a',
      'aa|partner.update',
      'ap|pa-1',
      'apa|pa-1|partner.update',
    ]);
    expect(auditListEntries({ ...doc, partner_id: null }).map((e) => e.prefix)).toEqual(['a', 'aa|partner.update']);
    expect(auditListPrefix({ partnerId: 'pa-1', action: 'partner.update' })).toBe('apa|pa-1|partner.update');
  });
});

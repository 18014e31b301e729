import { refusalOf } from '../../src/ingress/refusal-reports';
import {
  leadsToRead,
  projectLeadEvents,
  projectRefusals,
  tallyWholeLead,
  type StoredLead,
} from '../../src/processor/reports/event-projection';
import { isAgentOutcome, newReportLead, tally, type ReportLeadDoc } from '../../src/processor/reports/lead-tally';
import {
  bucketField,
  bucketOf,
  DURATION_BOUNDS_S,
  medianSeconds,
  rejectionGroup,
} from '../../src/shared/reports/cell-counts';
import {
  cellField,
  dayDocId,
  monthDocId,
  parseCellDocId,
  parseCellField,
  unitRange,
} from '../../src/shared/reports/cell-keys';
import type { LeadEvent } from '../../src/shared/schemas';
import { at, events, ev, stored, sum, T0 } from '../support/report-lead-fixture';

describe('cell keys', () => {
  it('put the level and its day or month first, so a range of either is one _id range, and keep every character in # to ~', () => {
    const id = dayDocId('2026-11-20', 'pa-1');
    expect(id).toBe('d|2026-11-20|pa-1');
    expect(monthDocId('2026-11-20', 'pa-1')).toBe('m|2026-11|pa-1');
    expect(parseCellDocId(id)).toEqual({ level: 'd', unit: '2026-11-20', partnerId: 'pa-1' });
    const range = unitRange('d', '2026-11-20', '2026-11-21');
    for (const inside of [id, dayDocId('2026-11-21', 'pa-zz')])
      expect(inside > range.$gt && inside < range.$lt).toBe(true);
    for (const outside of [
      dayDocId('2026-11-19', 'pa-1'),
      dayDocId('2026-11-22', 'pa-1'),
      monthDocId('2026-11-20', 'pa-1'),
    ])
      expect(outside > range.$gt && outside < range.$lt).toBe(false);
    const months = unitRange('m', '2026-10', '2026-11');
    expect(
      [monthDocId('2026-10-01', 'pa-1'), monthDocId('2026-11-30', 'pa-zz')].every(
        (m) => m > months.$gt && m < months.$lt,
      ),
    ).toBe(true);
    expect([monthDocId('2026-12-01', 'pa-1'), id].some((m) => m > months.$gt && m < months.$lt)).toBe(false);
  });

  it.each(['google', 'a.b', 'x y', "ä!~*()'", '$x', 'a|b', '=cmd'])(
    'encode the source %p into a field with no dot or dollar, and back',
    (source) => {
      const field = cellField('DE', source);
      expect(field).not.toMatch(/[.$]/);
      for (const ch of field) expect(ch >= '#' && ch <= '~').toBe(true);
      expect(parseCellField(field)).toEqual({ country: 'DE', source });
    },
  );

  it('keep an absent country or source apart from any value', () => {
    expect(parseCellField(cellField(null, undefined))).toEqual({ country: null, source: null });
    // Free text may hold a lone surrogate (the contract fuzzer sent one): it is kept as U+FFFD, never a throw.
    expect(parseCellField(cellField('DE', 'x\ud800'))).toEqual({ country: 'DE', source: 'x\ufffd' });
    expect(cellField(null, '')).toBe(cellField(undefined, null));
  });
});

describe('durations and medians', () => {
  it('tell minutes apart under an hour, and put anything past the last bound in the last bucket', () => {
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(60)).toBe(0);
    expect(bucketOf(61)).toBe(1);
    expect(bucketOf(59 * 60 + 1)).toBe(59);
    expect(DURATION_BOUNDS_S[bucketOf(3600)]).toBe(3600);
    expect(DURATION_BOUNDS_S[bucketOf(3601)]).toBe(5400);
    expect(bucketOf(1e12)).toBe(DURATION_BOUNDS_S.length - 1);
    expect(bucketOf(-5)).toBe(0);
  });

  it('report the median as the upper bound of the bucket holding the middle value (the lower middle of an even count)', () => {
    const h = (seconds: number[]) => {
      const c: Record<string, number> = {};
      for (const s of seconds) c[bucketField('tc', bucketOf(s))] = (c[bucketField('tc', bucketOf(s))] ?? 0) + 1;
      return c;
    };
    expect(medianSeconds({}, 'tc')).toBeNull();
    expect(medianSeconds(h([30]), 'tc')).toBe(60);
    expect(medianSeconds(h([30, 150, 7000]), 'tc')).toBe(180);
    expect(medianSeconds(h([30, 150, 200, 7000]), 'tc')).toBe(180);
    expect(medianSeconds(h([30, 100]), 'tc')).toBe(60);
    expect(medianSeconds(h([30]), 'tf')).toBeNull();
  });
});

describe('rejection reasons', () => {
  it.each([
    ['country_blocked:DE', 'country'],
    ['source_blocked', 'source'],
    ['ip_blocked', 'ip'],
    ['risk_rejected', 'risk'],
    ['cap_reached:daily', 'cap'],
    ['cap_reached:country_hourly', 'cap'],
    ['partner_unknown', 'other'],
    [undefined, 'other'],
  ])('%p is grouped as %p', (reason, group) => expect(rejectionGroup(reason)).toBe(group));
});

describe('the contacted rule', () => {
  it('is the first status change to anything but assigned or chargeback', () => {
    for (const to of ['contacted', 'callback', 'interested', 'no_answer', 'wrong_number', 'trash', 'custom_code'])
      expect(isAgentOutcome('lead.status_changed', to)).toBe(true);
    expect(isAgentOutcome('lead.status_changed', 'assigned')).toBe(false);
    expect(isAgentOutcome('lead.status_changed', 'chargeback')).toBe(false);
    expect(isAgentOutcome('lead.ftd', 'ftd')).toBe(false);
    expect(isAgentOutcome(null, 'assigned')).toBe(false);
  });

  it('counts the first outcome only, timed from acceptance', () => {
    let s: ReportLeadDoc = newReportLead({ _id: 'le-1', partner_id: 'pa-1', created_at: T0 }, '2026-11-20');
    const deltas = [
      { index: 0, event: 'lead.accepted', to: 'new', at: T0 },
      { index: 1, event: 'lead.status_changed', to: 'assigned', at: at(1) },
      { index: 2, event: null, to: 'assigned', at: at(20) },
      { index: 3, event: 'lead.status_changed', to: 'no_answer', at: at(25) },
    ].map((e) => {
      const r = tally(s, e as Parameters<typeof tally>[1]);
      s = r.state;
      return r.delta;
    });
    expect(deltas).toEqual([{ received: 1, accepted: 1 }, {}, {}, { contacted: 1, [bucketField('tc', 24)]: 1 }]);
    expect(tally(s, { index: 4, event: 'lead.status_changed', to: 'contacted', at: at(30) }).delta).toEqual({});
  });
});

const dayOf = () => '2026-11-20';

describe('projecting lead events', () => {
  const whole = tallyWholeLead(stored, '2026-11-20');

  it("counts every entry once, into the lead's cell, and the rebuild counts the same", () => {
    const p = projectLeadEvents(
      events.map((event, i) => ({ partition: 0, offset: i, event })),
      new Map(),
      new Map([['le-7', stored]]),
      dayOf,
    );
    expect(
      p.contributions.every(
        (c) => c.day === '2026-11-20' && c.partnerId === 'pa-1' && c.field === cellField('DE', 'google.ads'),
      ),
    ).toBe(true);
    expect(sum(p.contributions)).toEqual({
      received: 1,
      accepted: 1,
      contacted: 1,
      [bucketField('tc', 11)]: 1,
      ftd: 1,
      [bucketField('tf', bucketOf(5400))]: 1,
      rtd: 1,
      chargebacks: 1,
    });
    expect(sum(p.contributions)).toEqual(whole.delta);
    expect(p.changed.get('le-7')).toEqual(whole.state);
  });

  it('skips events already counted (re-announced, replayed): the per-lead fence', () => {
    const p = projectLeadEvents(
      [...events, ...events].map((event, i) => ({ partition: 0, offset: i, event })),
      new Map([['le-7', whole.state]]),
      new Map(),
      dayOf,
    );
    expect(p.contributions).toEqual([]);
  });

  it('fills a gap from the stored history, never past the event, and asks to read only what it needs', () => {
    const known = new Map<string, ReportLeadDoc>();
    const late = [{ partition: 0, offset: 5, event: events[3] as LeadEvent }]; // the ftd arrives first: accepted, assigned, contacted are on their way
    expect(leadsToRead(late, known)).toEqual(['le-7']);
    const p = projectLeadEvents(late, known, new Map([['le-7', stored]]), dayOf);
    expect(sum(p.contributions)).toEqual({
      received: 1,
      accepted: 1,
      contacted: 1,
      [bucketField('tc', 11)]: 1,
      ftd: 1,
      [bucketField('tf', bucketOf(5400))]: 1,
    });
    expect(p.changed.get('le-7')?.through).toBe(3);
    const rest = events.map((event, i) => ({ partition: 0, offset: 10 + i, event }));
    const state = new Map([['le-7', p.changed.get('le-7') as ReportLeadDoc]]);
    expect(leadsToRead(rest, state)).toEqual([]);
    expect(sum(projectLeadEvents(rest, state, new Map(), dayOf).contributions)).toEqual({ rtd: 1, chargebacks: 1 });
  });

  it('leaves sandbox leads out and reports events of leads it cannot find', () => {
    const p = projectLeadEvents(
      [
        { partition: 0, offset: 1, event: ev('le-8', 0, 'lead.accepted', 'new', T0, { test: true }) },
        { partition: 0, offset: 2, event: ev('le-9', 0, 'lead.accepted', 'new', T0) },
      ],
      new Map(),
      new Map(),
      dayOf,
    );
    expect(p.contributions).toEqual([]);
    expect(p.unknown).toEqual(['le-9:0']);
  });

  it('counts a rejection by its reason group', () => {
    const lead: StoredLead = {
      _id: 'le-3',
      partner_id: 'pa-1',
      created_at: T0,
      history: [{ event: 'lead.rejected', to: 'rejected', at: T0, reason: 'cap_reached:daily' }],
    };
    const p = projectLeadEvents(
      [
        {
          partition: 0,
          offset: 0,
          event: ev('le-3', 0, 'lead.rejected', 'rejected', T0, { reason: 'cap_reached:daily' }),
        },
      ],
      new Map(),
      new Map([['le-3', lead]]),
      dayOf,
    );
    expect(p.contributions[0]).toMatchObject({ field: cellField(null, null), delta: { received: 1, rejected_cap: 1 } });
  });
});

describe('refusals', () => {
  it("count one received and one duplicate or validation error each, on the partner's day", () => {
    const r = (status: 'duplicate' | 'validation_error') =>
      refusalOf('pa-1', status, 'x', { country_code: 'FR', source: 's' }, T0, 'id');
    const cs = projectRefusals(
      [
        { partition: 0, offset: 4, refusal: r('duplicate') },
        { partition: 0, offset: 5, refusal: r('validation_error') },
      ],
      () => '2026-11-21',
    );
    expect(cs.map((c) => [c.day, c.partnerId, c.field, c.delta])).toEqual([
      ['2026-11-21', 'pa-1', 'FR|s', { received: 1, duplicates: 1 }],
      ['2026-11-21', 'pa-1', 'FR|s', { received: 1, validation_errors: 1 }],
    ]);
  });

  it('keep only a well-formed country and a string source, never anything else the request held', () => {
    expect(
      refusalOf(
        'pa-1',
        'validation_error',
        'invalid_format:phone',
        { country_code: 'de', source: 5, phone: '+4917' } as never,
        T0,
        'id',
      ),
    ).toEqual({
      refusal_id: 'id',
      partner_id: 'pa-1',
      status: 'validation_error',
      reason: 'invalid_format:phone',
      at: T0.toISOString(),
    });
  });
});

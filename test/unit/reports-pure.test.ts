import { refusalOf } from '../../src/ingress/refusal-reports';
import { csvCell, neutralise, reportCsv } from '../../src/manager/reports/report-csv';
import { readPlan, reportScope } from '../../src/manager/reports/report-reader';
import { groupCells, type CellRecord } from '../../src/manager/reports/report-rows';
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
  blockOf,
  cellField,
  dayDocId,
  monthDocId,
  parseCellDocId,
  parseCellField,
  unitRange,
} from '../../src/shared/reports/cell-keys';
import type { LeadEvent } from '../../src/shared/schemas';

const T0 = new Date('2026-11-20T10:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

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

const ev = (
  lead: string,
  index: number,
  event: LeadEvent['event'],
  to: string,
  when: Date,
  extra: Partial<LeadEvent> = {},
): LeadEvent => ({
  event_id: `${lead}:${index}`,
  event,
  lead_id: lead,
  partner_id: 'pa-1',
  external_lead_id: `x-${lead}`,
  our_status: to,
  is_depositor: false,
  occurred_at: when.toISOString(),
  ...extra,
});

const stored: StoredLead = {
  _id: 'le-7',
  partner_id: 'pa-1',
  country_code: 'DE',
  source: 'google.ads',
  created_at: T0,
  history: [
    { event: 'lead.accepted', to: 'new', at: T0 },
    { event: 'lead.status_changed', to: 'assigned', at: at(0) },
    { event: 'lead.status_changed', to: 'contacted', at: at(12) },
    { event: 'lead.ftd', to: 'ftd', at: at(90) },
    { event: 'lead.rtd', to: 'rtd', at: at(100) },
    { event: 'lead.status_changed', to: 'chargeback', at: at(200) },
  ],
};
const events = stored.history.map((h, i) => ev('le-7', i, h.event as LeadEvent['event'], h.to, h.at));
const dayOf = () => '2026-11-20';
const sum = (cs: { delta: Record<string, number> }[]) =>
  cs.reduce<Record<string, number>>((a, c) => {
    for (const [k, n] of Object.entries(c.delta)) a[k] = (a[k] ?? 0) + n;
    return a;
  }, {});

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

describe('report rows', () => {
  const cell = (day: string, partner: string, field: string, counts: Record<string, number>): CellRecord => ({
    key: { day, partnerId: partner },
    field,
    counts,
  });
  const cells = [
    cell('2026-11-20', 'pa-1', 'DE|g', {
      received: 3,
      accepted: 2,
      rejected_country: 1,
      contacted: 1,
      ftd: 1,
      [bucketField('tc', 4)]: 1,
    }),
    cell('2026-11-20', 'pa-1', 'DE|g', { received: 2, duplicates: 1, validation_errors: 1 }),
    cell('2026-11-21', 'pa-1', 'FR|', { received: 1, accepted: 1 }),
    cell('2026-11-21', 'pa-2', 'DE|g', { received: 1, accepted: 1, ftd: 1, chargebacks: 1 }),
  ];

  it('sum every record of a cell and group by any dimensions, sorted, with totals', () => {
    const byPartner = groupCells(cells, ['partner'], {});
    expect(
      byPartner.rows.map((r) => [r.partner_id, r.received, r.accepted, r.duplicates, r.validation_errors, r.rejected]),
    ).toEqual([
      ['pa-1', 6, 3, 1, 1, 1],
      ['pa-2', 1, 1, 0, 0, 0],
    ]);
    expect(byPartner.totals).toMatchObject({
      received: 7,
      accepted: 4,
      ftd: 2,
      chargebacks: 1,
      accepted_share: 0.5714,
      ftd_conversion: 0.5,
      chargeback_rate: 0.5,
    });
    const byCountryDay = groupCells(cells, ['day', 'country'], {});
    expect(byCountryDay.rows.map((r) => [r.day, r.country, r.received])).toEqual([
      ['2026-11-20', 'DE', 5],
      ['2026-11-21', 'DE', 1],
      ['2026-11-21', 'FR', 1],
    ]);
    expect(groupCells(cells, ['source'], {}).rows.map((r) => [r.source, r.received])).toEqual([
      [null, 1],
      ['g', 6],
    ]);
  });

  it('filter by partner, country and source, and give rates and medians', () => {
    const [row] = groupCells(cells, [], { affiliate_id: 'pa-1', country: 'DE', source: 'g' }).rows;
    expect(row).toMatchObject({
      received: 5,
      accepted: 2,
      contact_rate: 0.5,
      ftd_conversion: 0.5,
      chargeback_rate: 0,
      median_seconds_to_contact: 300,
      median_seconds_to_ftd: null,
    });
    expect(groupCells([], ['day'], {})).toMatchObject({ rows: [], totals: { received: 0, accepted_share: null } });
  });
});

describe('CSV', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('neutralises %p with a leading quote', (v) =>
    expect(neutralise(v)).toBe(`'${v}`),
  );

  it('quotes what needs quoting and leaves plain values alone', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(0.25)).toBe('0.25');
  });

  it("writes the JSON report's numbers: a header, one line per row, a total line", () => {
    const report = groupCells(
      [
        {
          key: { day: '2026-11-20', partnerId: 'pa-1' },
          field: cellField('DE', '=evil'),
          counts: { received: 2, accepted: 1, rejected_ip: 1 },
        },
      ],
      ['partner', 'source'],
      {},
    );
    const lines = reportCsv(report, ['partner', 'source']).split('\r\n');
    expect(lines[0]).toBe(
      'partner_id,source,received,accepted,duplicates,validation_errors,rejected,rejected_country,rejected_source,rejected_ip,rejected_risk,rejected_cap,rejected_other,contacted,ftd,rtd,chargebacks,accepted_share,contact_rate,ftd_conversion,chargeback_rate,median_seconds_to_contact,median_seconds_to_ftd',
    );
    expect(lines[1]).toBe("pa-1,'=evil,2,1,0,0,1,0,0,1,0,0,0,0,0,0,0,0.5,0,0,,,");
    expect(lines[2]).toBe('total,,2,1,0,0,1,0,0,1,0,0,0,0,0,0,0,0.5,0,0,,,');
    expect(lines[3]).toBe('');
  });
});

describe('report scope', () => {
  const now = new Date('2026-11-24T23:30:00Z');
  it('defaults to the last 7 days up to today (UTC) and checks days, order, span and dimensions', () => {
    expect(reportScope({}, now)).toEqual({ from: '2026-11-18', to: '2026-11-24', groupBy: [] });
    expect(reportScope({ from: '2026-11-01', to: '2026-11-01', group_by: 'day,partner,day' }, now)).toEqual({
      from: '2026-11-01',
      to: '2026-11-01',
      groupBy: ['day', 'partner'],
    });
    expect(() => reportScope({ from: '2026-11-02', to: '2026-11-01' }, now)).toThrow('from is after to');
    expect(() => reportScope({ from: '2025-01-01', to: '2026-11-01' }, now)).toThrow('at most 366 days');
    expect(() => reportScope({ from: '2026-02-30' }, now)).toThrow('not a calendar day');
    expect(() => reportScope({ group_by: 'agent' }, now)).toThrow('group_by');
  });
});

describe('read plan', () => {
  const DAY = 86_400_000;
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const daysOf = (from: string, to: string) => {
    const out: string[] = [];
    for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += DAY) out.push(dayOf(ms));
    return out;
  };
  // Every day a plan's part stands for.
  const covered = (part: { level: string; from: string; to: string }) => {
    if (part.level.endsWith('d')) return daysOf(part.from, part.to);
    const block = /b(\d+)$/.exec(part.level);
    if (block) return daysOf(part.from, dayOf(Date.parse(`${part.to}T00:00:00Z`) + (Number(block[1]) - 1) * DAY));
    const last = new Date(Date.parse(`${part.to}-01T00:00:00Z`));
    return daysOf(`${part.from}-01`, dayOf(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 0)));
  };

  it('reads whole months from month documents, whole blocks from block documents, and the days left from day documents', () => {
    expect(readPlan('2026-10-01', '2026-10-31', false)).toEqual([{ level: 'm', from: '2026-10', to: '2026-10' }]);
    expect(readPlan('2026-09-28', '2026-12-02', false)).toEqual([
      { level: 'd', from: '2026-09-28', to: '2026-09-30' },
      { level: 'm', from: '2026-10', to: '2026-11' },
      { level: 'd', from: '2026-12-01', to: '2026-12-02' },
    ]);
    expect(readPlan('2026-02-01', '2026-02-28', false, true)).toEqual([
      { level: 'tm', from: '2026-02', to: '2026-02' },
    ]);
    expect(readPlan('2026-10-01', '2026-10-31', true)).toEqual([{ level: 'd', from: '2026-10-01', to: '2026-10-31' }]);
    for (const size of [4, 16] as const) {
      const block = blockOf('2026-10-05', size);
      const next = dayOf(Date.parse(`${block}T00:00:00Z`) + size * DAY);
      expect(block <= '2026-10-05' && blockOf(block, size) === block && blockOf(next, size) === next).toBe(true);
    }
    const b16 = blockOf('2026-10-05', 16);
    const day = (n: number) => dayOf(Date.parse(`${b16}T00:00:00Z`) + n * DAY);
    expect(readPlan(day(-5), day(22), false)).toEqual([
      { level: 'd', from: day(-5), to: day(-5) },
      { level: 'b4', from: day(-4), to: day(-4) },
      { level: 'b16', from: day(0), to: day(0) },
      { level: 'b4', from: day(16), to: day(16) },
      { level: 'd', from: day(20), to: day(22) },
    ]);
  });

  it('covers every day of any range exactly once, with few documents a partner', () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 400; i++) {
      const from = dayOf(start + ((i * 37) % 500) * DAY);
      const span = [1, 7, 14, 30, 31, 45, 90, 366][i % 8] as number;
      const to = dayOf(Date.parse(`${from}T00:00:00Z`) + (span - 1) * DAY);
      for (const [byDay, totals] of [
        [false, false],
        [false, true],
        [true, false],
      ] as const) {
        const plan = readPlan(from, to, byDay, totals);
        expect(plan.flatMap(covered)).toEqual(daysOf(from, to));
        if (byDay) expect(plan.every((p) => p.level === 'd')).toBe(true);
        if (totals) expect(plan.every((p) => p.level.startsWith('t'))).toBe(true);
        // Documents read a partner: within a month, at most 3 days and 3 blocks of 4 at either end.
        const size = (level: string) => (level.endsWith('d') ? 1 : Number(/b(\d+)$/.exec(level)?.[1] ?? 0));
        const docs = plan.reduce(
          (n, p) =>
            n +
            (size(p.level) > 0
              ? covered(p).length / size(p.level)
              : new Set(covered(p).map((d) => d.slice(0, 7))).size),
          0,
        );
        if (!byDay && span <= 30) expect(docs).toBeLessThanOrEqual(Math.min(span, 12 + Math.ceil(span / 16)));
      }
    }
  });
});

describe('the CLI', () => {
  it('asks for a report and its CSV with the same query', () => {
    const { parseCommand } = jest.requireActual<typeof import('../../src/manager/cli-commands')>(
      '../../src/manager/cli-commands',
    );
    const args = ['--from', '2026-11-01', '--to', '2026-11-02', '--group-by', 'partner,day', '--affiliate-id', 'pa-1'];
    expect(parseCommand(['report', ...args])).toEqual({
      method: 'GET',
      path: '/api/reports?from=2026-11-01&to=2026-11-02&group_by=partner%2Cday&affiliate_id=pa-1',
    });
    expect(parseCommand(['report-csv', ...args]).path).toBe(
      '/api/reports.csv?from=2026-11-01&to=2026-11-02&group_by=partner%2Cday&affiliate_id=pa-1',
    );
  });
});

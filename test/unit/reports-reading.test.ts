import { csvCell, neutralise, reportCsv } from '../../src/manager/reports/report-csv';
import { readPlan, reportScope } from '../../src/manager/reports/report-reader';
import { groupCells, type CellRecord } from '../../src/manager/reports/report-rows';
import { bucketField } from '../../src/shared/reports/cell-counts';
import { blockOf, cellField } from '../../src/shared/reports/cell-keys';

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

import { hourRange, minuteBuckets, minuteDocId, type MinuteDoc } from '../../src/shared/overview/minute-counts';

const at = (iso: string): number => Date.parse(iso);
const doc = (hour: string, writer: string, charts: MinuteDoc['charts']): MinuteDoc => ({
  _id: `${hour}|${writer}`,
  charts,
});

describe('minuteBuckets', () => {
  const now = at('2026-11-24T10:30:20Z');
  const docs = [
    doc('2026-11-24T10', 'a', {
      leads: { m30: { accepted: 2 }, m05: { accepted: 1, duplicate: 1 } },
      callbacks: { m30: { delivered: 4 } },
    }),
    doc('2026-11-24T10', 'b', { leads: { m30: { accepted: 3 } } }),
    doc('2026-11-24T09', 'a', { leads: { m31: { accepted: 7 }, m30: { accepted: 100 } } }),
  ];

  it("gives the window's minutes oldest first, ending with the minute in progress, every writer summed", () => {
    const leads = minuteBuckets(docs, 'leads', now, 60);
    expect(leads).toHaveLength(60);
    expect(leads[0]).toEqual({
      start: '2026-11-24T09:31:00.000Z',
      end: '2026-11-24T09:32:00.000Z',
      counts: { accepted: 7 },
    });
    expect(leads.at(-1)).toEqual({
      start: '2026-11-24T10:30:00.000Z',
      end: '2026-11-24T10:31:00.000Z',
      counts: { accepted: 5 },
    });
    expect(leads.find((m) => m.start === '2026-11-24T10:05:00.000Z')!.counts).toEqual({ accepted: 1, duplicate: 1 });
    expect(leads.filter((m) => Object.keys(m.counts).length > 0)).toHaveLength(3);
  });

  it('leaves out what was counted before the window, and reads each chart apart', () => {
    expect(minuteBuckets(docs, 'leads', now, 60).some((m) => m.counts.accepted === 100)).toBe(false);
    expect(minuteBuckets(docs, 'callbacks', now, 60).at(-1)!.counts).toEqual({ delivered: 4 });
  });
});

describe('minute document keys', () => {
  it('sort by hour, so the hours of a window are one _id range', () => {
    const range = hourRange(at('2026-11-24T09:30:00Z'), at('2026-11-24T10:30:00Z'));
    const inside = [minuteDocId(at('2026-11-24T09:59:00Z'), 'host-1'), minuteDocId(at('2026-11-24T10:00:00Z'), 'zz~')];
    const outside = [minuteDocId(at('2026-11-24T08:59:00Z'), 'host-1'), minuteDocId(at('2026-11-24T11:00:00Z'), 'a')];
    for (const id of inside) expect(id > range.$gt && id < range.$lt).toBe(true);
    for (const id of outside) expect(id > range.$gt && id < range.$lt).toBe(false);
  });
});

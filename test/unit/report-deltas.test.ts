import { deltaMessages, writerChunks } from '../../src/processor/reports/report-deltas';

// The reports' repartition by partner (src/processor/reports/report-deltas.ts), both ways.
const d = (offset: number, partnerId: string, received = 1) => ({
  offset,
  day: '2026-11-20',
  partnerId,
  field: 'DE|g',
  delta: { received },
});

describe('report deltas', () => {
  it('publish one message per source partition and partner, deltas in offset order', () => {
    const messages = deltaMessages([
      { writer: 'p0', deltas: [d(12, 'pa-a'), d(10, 'pa-b'), d(11, 'pa-a')] },
      { writer: 'i2', deltas: [d(3, 'pa-a')] },
    ]);
    expect(messages.map((m) => [m.writer, m.partner_id, m.deltas.map((x) => x.offset)])).toEqual([
      ['p0', 'pa-b', [10]],
      ['p0', 'pa-a', [11, 12]],
      ['i2', 'pa-a', [3]],
    ]);
  });

  it('read back as one chunk per source partition and partner, a delta published again counted once', () => {
    const first = deltaMessages([{ writer: 'p0', deltas: [d(10, 'pa-a'), d(11, 'pa-a'), d(12, 'pa-b')] }]);
    // The source chunk read again after a crash, cut otherwise: published again after itself.
    const again = deltaMessages([{ writer: 'p0', deltas: [d(11, 'pa-a'), d(12, 'pa-b'), d(13, 'pa-a')] }]);
    const chunks = writerChunks([...first, ...again]);
    expect(chunks.map((c) => [c.writer, c.deltas.map((x) => `${x.partnerId}@${x.offset}`), c.lastOffset])).toEqual([
      ['p0', ['pa-a@10', 'pa-a@11', 'pa-a@13'], 13],
      ['p0', ['pa-b@12'], 12],
    ]);
  });
});

import { cellField, dayDocId, monthDocId, unitRange } from '../../src/shared/reports/cell-keys';
import { CellStore, cellsOf, type CellDoc } from '../../src/shared/reports/cell-store';
import { entryId, listPrefix } from '../../src/shared/store/list-index';
import { ID_CEILING, ID_FLOOR } from '../../src/shared/store/id-index';
import { openStore, type Store } from './support/store';

// The reports' counter documents (src/shared/reports/cell-store.ts) on the server: read and written by
// `_id` only (point reads, `$in`, unit ranges), each write a compare-and-set on the version `v`
// (atomic on every store: test/store/atomic-updates.test.ts).
let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(() => store.close());

describe('report counter documents (src/shared/reports/cell-store.ts)', () => {
  it('add a chunk once by compare-and-set, insert what is missing, and read back by _id and unit range', async () => {
    const cells = new CellStore(store.fresh<CellDoc>('report_cells'));
    const field = cellField('DE', 'news "letter" \\ ü');
    const deltas = [1, 2, 3].map((offset) => ({
      offset,
      day: '2026-11-20',
      partnerId: 'pa-a',
      field,
      delta: { received: 1 },
    }));
    await cells.addOnce([{ writer: 'p0', deltas, lastOffset: 3 }]);
    await cells.addOnce([
      { writer: 'p0', deltas, lastOffset: 3 },
      { writer: 'i1', deltas: deltas.slice(0, 1), lastOffset: 1 },
    ]);
    const [day] = await cells.byIds([dayDocId('2026-11-20', 'pa-a')]);
    expect(cellsOf(day!)).toEqual({ lead: { [field]: { received: 3 } }, refusal: { [field]: { received: 1 } } });
    const months: CellDoc[] = [];
    for await (const page of cells.units('m', '2026-10', '2026-12')) months.push(...page);
    expect(months.map((m) => m._id)).toEqual([monthDocId('2026-11-20', 'pa-a')]);
  });

  it("keep a month's cells as one string field, returned byte for byte (src/shared/store/report-cell-text.ts)", async () => {
    const c = store.fresh<CellDoc>('cells_text');
    const text = JSON.stringify(
      Object.fromEntries(
        Array.from({ length: 1000 }, (_, n) => [cellField('FR', `source ${n} "ü" \\`), { received: n, accepted: n }]),
      ),
    );
    await c.insertOne({ _id: 'm|2026-11|pa-b', v: 1, o: { p0: 12 }, c: text, r: '{}' });
    const back = await c.findOne({ _id: 'm|2026-11|pa-b' }, { projection: { c: 1 } });
    expect(back?.c).toBe(text);
  });
});

// FerretDB 1.x with patch 0004 orders string `_id`s by their JSON text; the keys read by range keep
// to characters whose JSON text is themselves, ID_FLOOR to ID_CEILING without '\', '&', '<' and '>', so
// that order is MongoDB's binary string order (src/shared/store/id-index.ts).
describe('keys read by _id range', () => {
  const escaped = new Set(['\\', '&', '<', '>']);
  const rangeSafe = (id: string) => [...id].every((ch) => ch >= ID_FLOOR && ch <= ID_CEILING && !escaped.has(ch));

  it('are made only of range-safe characters, whatever the free text in them (src/shared/store/list-index.ts keyPart, src/shared/reports/cell-keys.ts)', () => {
    const text = 'a "quoted" \\ <path/> & ü\u0000 ~x|y';
    const ids = [
      entryId({ prefix: listPrefix('lps', 'pa-1', text), at: new Date(0), ref: `le-${text}` }),
      dayDocId('2026-11-20', 'pa-1'),
      monthDocId('2026-11-20', 'pa-1'),
      ...Object.values(unitRange('b16', '2026-11-01', '2026-11-30')),
    ];
    for (const id of ids) expect(rangeSafe(id)).toBe(true);
  });

  it('sort on the server as binary string order, in ranges both ways and a page at a time (src/shared/store/list-index.ts, src/shared/reports/cell-store.ts units)', async () => {
    const c = store.fresh<{ _id: string }>('range_order');
    const chars = Array.from({ length: 0x7f - 0x23 }, (_, i) => String.fromCharCode(0x23 + i)).filter(
      (ch) => !escaped.has(ch),
    );
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const ids = [
      ...new Set(
        Array.from(
          { length: 400 },
          () => `k|${Array.from({ length: 1 + (next() % 6) }, () => chars[next() % chars.length]).join('')}`,
        ),
      ),
    ];
    await c.insertMany(ids.map((_id) => ({ _id })));
    const sorted = [...ids].sort();
    const [low, high] = [sorted[50]!, sorted[350]!];
    const asc = await c
      .find({ _id: { $gt: low, $lt: high } })
      .sort({ _id: 1 })
      .limit(1000)
      .toArray();
    expect(asc.map((d) => d._id)).toEqual(sorted.filter((id) => id > low && id < high));
    const pages: string[] = [];
    for (let after = 'k|'; ;) {
      const page = await c
        .find({ _id: { $gt: after, $lt: `k|${ID_CEILING}${ID_CEILING}` } })
        .sort({ _id: 1 })
        .limit(7)
        .toArray();
      if (page.length === 0) break;
      pages.push(...page.map((d) => d._id));
      after = page[page.length - 1]!._id;
    }
    expect(pages).toEqual(sorted);
    const top = `k|${ID_CEILING}`;
    const desc = await c
      .find({ _id: { $gte: low, $lt: top } })
      .sort({ _id: -1 })
      .limit(20)
      .toArray();
    expect(desc.map((d) => d._id)).toEqual(
      sorted
        .filter((id) => id >= low && id < top)
        .reverse()
        .slice(0, 20),
    );
  });
});

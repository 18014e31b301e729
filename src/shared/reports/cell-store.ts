import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Db } from 'mongodb';
import { findByIds } from '../mongo/bulk';
import { addCounts, type Counts } from './cell-counts';
import { dayRange } from './cell-keys';
import { ServiceError } from '../errors';

// A counter document of the reports (report_cells): one day, one partner, one writer (its `_id`,
// cell-keys.ts). `c` is the JSON of its cells, `{"<country>|<encoded source>": {counter: n}}`, kept
// as one string: the local store decodes every field of every document it reads (about 7 µs a
// field), so a month's report read 20 times faster than with the cells as nested fields. Its one
// writer reads, adds and writes it whole. `o`: the offset of the writer's partition last applied
// (absent for the rebuild's documents).
export interface CellDoc {
  _id: string;
  o?: number;
  c: string;
}

export type Cells = Record<string, Counts>;

export function cellsOf(doc: Pick<CellDoc, 'c'>): Cells {
  return doc.c ? (JSON.parse(doc.c) as Cells) : {};
}

// What one message of a partition adds to one cell of one document.
export interface OffsetDelta {
  offset: number;
  docId: string;
  field: string;
  delta: Counts;
}

export class CellsContendedError extends ServiceError {
  constructor(ids: string[]) {
    super('cells_contended', `report counter documents changed under this writer: ${ids.slice(0, 5).join(', ')}`, { retriable: true });
    this.name = 'CellsContendedError';
  }
}

const ROUNDS = 5;
const DUPLICATE_KEY = 11000;

export const cellsCollection = (db: Db): Collection<CellDoc> => db.collection<CellDoc>('report_cells');

// Reads and writes report_cells, only by `_id`: point reads, `$in` lists and one day range.
export class CellStore {
  constructor(private readonly cells: Collection<CellDoc>) {}

  // Every counter document of days `from` to `to`, in `_id` order, a page at a time.
  async *days(from: string, to: string, pageSize = 500): AsyncGenerator<CellDoc[]> {
    const range = dayRange(from, to);
    let after = range.$gt;
    for (;;) {
      const page = await this.cells.find({ _id: { $gt: after, $lt: range.$lt } }).sort({ _id: 1 }).limit(pageSize).toArray();
      if (page.length > 0) yield page;
      if (page.length < pageSize) return;
      after = (page[page.length - 1] as CellDoc)._id;
    }
  }

  // Adds one chunk of a partition's messages to its counter documents, exactly once per message:
  // a document only takes the deltas of messages past its `o`, and each write is conditional on the
  // `o` it was computed from (a compare-and-set), so a replayed chunk, a chunk cut differently
  // after a crash, or a former owner still finishing its batch adds nothing twice. The deltas come
  // from the messages themselves, so whoever applies a message applies the same numbers.
  async addOnce(deltas: readonly OffsetDelta[], lastOffset: number): Promise<void> {
    const ids = [...new Set(deltas.map((d) => d.docId))];
    const byDoc = new Map<string, OffsetDelta[]>();
    for (const d of deltas) byDoc.set(d.docId, [...(byDoc.get(d.docId) ?? []), d]);
    for (let round = 1; round <= ROUNDS; round++) {
      const seen = await findByIds(this.cells, ids);
      const ops: AnyBulkWriteOperation<CellDoc>[] = [];
      const pending: string[] = [];
      for (const id of ids) {
        const doc = seen.get(id);
        const o = doc?.o ?? -1;
        if (lastOffset <= o) continue;
        const cells = doc ? cellsOf(doc) : {};
        for (const d of byDoc.get(id) ?? []) if (d.offset > o) addCounts((cells[d.field] ??= {}), d.delta);
        pending.push(id);
        const c = JSON.stringify(cells);
        ops.push(doc
          ? { updateOne: { filter: { _id: id, o }, update: { $set: { o: lastOffset, c } } } }
          : { insertOne: { document: { _id: id, o: lastOffset, c } } });
      }
      if (ops.length === 0) return;
      if (await this.allApplied(ops)) return;
      if (round === ROUNDS) throw new CellsContendedError(pending);
    }
  }

  // Writes the rebuild's documents whole (writer r: nothing else writes them).
  async replace(docs: readonly { _id: string; cells: Cells }[]): Promise<void> {
    if (docs.length === 0) return;
    await this.cells.bulkWrite(docs.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: { _id: doc._id, c: JSON.stringify(doc.cells) }, upsert: true } })), { ordered: false });
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) await this.cells.deleteMany({ _id: { $in: ids.slice(i, i + 500) } });
  }

  // Every counter document's `_id`, a page at a time (for the rebuild).
  async *allIds(pageSize = 500): AsyncGenerator<string[]> {
    const range = dayRange('0000-00-00', '9999-99-99');
    let after = range.$gt;
    for (;;) {
      const page = await this.cells.find({ _id: { $gt: after, $lt: range.$lt } }, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(pageSize).toArray();
      if (page.length > 0) yield page.map((d) => d._id);
      if (page.length < pageSize) return;
      after = (page[page.length - 1] as CellDoc)._id;
    }
  }

  private async allApplied(ops: AnyBulkWriteOperation<CellDoc>[]): Promise<boolean> {
    const updates = ops.filter((op) => 'updateOne' in op).length;
    const inserts = ops.length - updates;
    try {
      const res = await this.cells.bulkWrite(ops, { ordered: false });
      return res.matchedCount === updates && res.insertedCount === inserts;
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) throw err;
      const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) throw err;
      return false; // another writer created a document first: read again
    }
  }
}

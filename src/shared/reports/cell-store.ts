import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Db } from 'mongodb';
import { findByIds } from '../mongo/bulk';
import type { Counts } from './cell-counts';
import { dayRange, parseCellDocId } from './cell-keys';

// A counter document of the reports (report_cells): one day, one partner, one writer; `c` maps each
// cell (`<country>|<encoded source>`) to its counters; `o` is the offset of the writer's partition
// last applied to it (absent for the rebuild's).
export interface CellDoc {
  _id: string;
  day: string;
  partner_id: string;
  writer: string;
  o?: number;
  c: Record<string, Counts>;
  updated_at: Date;
}

// What one message of a partition adds to one cell of one document.
export interface OffsetDelta {
  offset: number;
  docId: string;
  field: string;
  delta: Counts;
}

export class CellsContendedError extends Error {
  readonly retriable = true;
  constructor(ids: string[]) {
    super(`report counter documents changed under this writer: ${ids.slice(0, 5).join(', ')}`);
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
  // a document only takes the deltas of messages past its `o`, and each update is conditional on
  // the `o` it was computed from (a compare-and-set), so a replayed chunk, a chunk cut differently
  // after a crash, or a former owner still finishing its batch adds nothing twice. The deltas come
  // from the messages themselves, so whoever applies a message applies the same numbers.
  async addOnce(deltas: readonly OffsetDelta[], lastOffset: number, now: Date): Promise<void> {
    const ids = [...new Set(deltas.map((d) => d.docId))];
    for (let round = 1; round <= ROUNDS; round++) {
      const seen = await findByIds(this.cells, ids, { projection: { o: 1 } });
      const ops: AnyBulkWriteOperation<CellDoc>[] = [];
      const pending: string[] = [];
      for (const id of ids) {
        const doc = seen.get(id);
        const o = doc?.o ?? -1;
        if (lastOffset <= o) continue;
        const sums = sumPast(deltas.filter((d) => d.docId === id && d.offset > o));
        pending.push(id);
        if (doc) {
          const inc = incPaths(sums);
          const update = Object.keys(inc).length > 0 ? { $inc: inc, $set: { o: lastOffset, updated_at: now } } : { $set: { o: lastOffset, updated_at: now } };
          ops.push({ updateOne: { filter: { _id: id, o }, update } });
        } else {
          const { day, partnerId, writer } = parseCellDocId(id);
          ops.push({ insertOne: { document: { _id: id, day, partner_id: partnerId, writer, o: lastOffset, c: sums, updated_at: now } } });
        }
      }
      if (ops.length === 0) return;
      if (await this.allApplied(ops)) return;
      if (round === ROUNDS) throw new CellsContendedError(pending);
    }
  }

  // Writes the rebuild's documents whole (writer r: nothing else writes them).
  async replace(docs: readonly CellDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.cells.bulkWrite(docs.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })), { ordered: false });
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) await this.cells.deleteMany({ _id: { $in: ids.slice(i, i + 500) } });
  }

  // Every counter document, a page at a time (for the rebuild).
  async *all(pageSize = 500): AsyncGenerator<CellDoc[]> {
    yield* this.days('0000-00-00', '9999-99-99', pageSize);
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

function sumPast(deltas: readonly OffsetDelta[]): Record<string, Counts> {
  const sums: Record<string, Counts> = {};
  for (const d of deltas) {
    const cell = (sums[d.field] ??= {});
    for (const [k, n] of Object.entries(d.delta)) cell[k] = (cell[k] ?? 0) + n;
  }
  return sums;
}

function incPaths(sums: Record<string, Counts>): Record<string, number> {
  const inc: Record<string, number> = {};
  for (const [field, counts] of Object.entries(sums)) for (const [k, n] of Object.entries(counts)) inc[`c.${field}.${k}`] = n;
  return inc;
}

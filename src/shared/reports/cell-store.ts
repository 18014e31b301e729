import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Db } from 'mongodb';
import { findByIds } from '../mongo/bulk';
import { addCounts, type Counts } from './cell-counts';
import {
  boundedField,
  FORMER_LAYOUT,
  isRefusalWriter,
  targetsOf,
  unitRange,
  type Level,
  type Writer,
} from './cell-keys';
import { ServiceError } from '../errors';
import { ID_CEILING, ID_FLOOR } from '../store/id-index';
import { cellsOfText, cellsText, NO_CELLS } from '../store/report-cell-text';

// A counter document of the reports (report_cells): one day, block of days or month of one partner, its cells
// or their totals (its `_id`, cell-keys.ts), written by the one projector of the partner's partition of
// reports.deltas (report-cell-consumer.ts). Its cells are JSON strings,
// `{"<country>|<encoded source>": {counter: n}}` (for the local store: report-cell-text.ts).
// - `c`: the lead-derived cells (from lead events partitions, writers p<n>; the rebuild replaces them);
// - `r`: the refusal cells (duplicates, validation errors: writers i<n>; no other record, kept);
// - `o`: the last source offset applied of each source partition, `{p0: 1234, i1: 56}`;
// - `v`: the version every write checks and moves (a former owner still finishing its chunk).
export interface CellDoc {
  _id: string;
  v: number;
  o: Record<string, number>;
  c: string;
  r: string;
}

export type Cells = Record<string, Counts>;

const parse = (text: string | undefined): Cells => cellsOfText<Counts>(text);
export const cellsOf = (doc: Partial<Pick<CellDoc, 'c' | 'r'>>): { lead: Cells; refusal: Cells } => ({
  lead: parse(doc.c),
  refusal: parse(doc.r),
});

// Every cell of a document, lead-derived and refusals added up.
export function allCellsOf(doc: Partial<Pick<CellDoc, 'c' | 'r'>>): Cells {
  const { lead, refusal } = cellsOf(doc);
  for (const [field, counts] of Object.entries(refusal)) addCounts((lead[field] ??= {}), counts);
  return lead;
}

// A whole counter document (seeding a benchmark).
export function counterDoc(id: string, lead: Cells, refusal: Cells, o: Record<string, number>, v = 1): CellDoc {
  return { _id: id, v, o, c: cellsText(lead), r: cellsText(refusal) };
}

// What one message of a partition adds to one cell of one partner-day (and so of its month).
export interface OffsetDelta {
  offset: number;
  day: string;
  partnerId: string;
  field: string;
  delta: Counts;
}

// One writer's part of a chunk: the deltas of its partition's messages up to `lastOffset` (messages
// that count nothing still move the offset).
export interface WriterChunk {
  writer: Writer;
  deltas: readonly OffsetDelta[];
  lastOffset: number;
}

export class CellsContendedError extends ServiceError {
  constructor(ids: string[]) {
    super('cells_contended', `report counter documents changed under this writer: ${ids.slice(0, 5).join(', ')}`, {
      retriable: true,
    });
    this.name = 'CellsContendedError';
  }
}

const ROUNDS = 12;
const DUPLICATE_KEY = 11000;
const PAGE = 500;

export const cellsCollection = (db: Db): Collection<CellDoc> => db.collection<CellDoc>('report_cells');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Reads and writes report_cells, only by `_id`: point reads, `$in` lists and unit ranges.
export class CellStore {
  constructor(private readonly cells: Collection<CellDoc>) {}

  // The counter documents of one level, units `from` to `to`, in `_id` order, a page at a time.
  async *units(level: Level, from: string, to: string, signal?: AbortSignal): AsyncGenerator<CellDoc[]> {
    const range = unitRange(level, from, to);
    const projection = { c: 1, r: 1 };
    let after = range.$gt;
    for (;;) {
      const page = await this.cells
        .find({ _id: { $gt: after, $lt: range.$lt } }, { projection, signal })
        .sort({ _id: 1 })
        .limit(PAGE)
        .toArray();
      if (page.length > 0) yield page;
      if (page.length < PAGE) return;
      after = (page[page.length - 1] as CellDoc)._id;
    }
  }

  // Counter documents by `_id`, point reads: a partner-scoped report names each of its documents.
  async byIds(ids: readonly string[], signal?: AbortSignal): Promise<CellDoc[]> {
    return [...(await findByIds(this.cells, ids, { projection: { c: 1, r: 1 }, signal })).values()];
  }

  // Adds chunks of source partitions to their days', blocks' and months' documents (cells and totals),
  // exactly once per source message, all in one read and one bulk write: a document takes only the
  // deltas past its `o.<writer>`, and each write is conditional on the version `v` it was computed from
  // (one atomic conditional update: the store decides), so a replayed chunk, a chunk cut or merged
  // differently after a crash, or a former owner still finishing its chunk adds nothing twice and
  // loses nothing. The deltas come from the messages themselves, so whoever applies a message
  // applies the same numbers.
  async addOnce(chunks: readonly WriterChunk[]): Promise<void> {
    const byDoc = new Map<string, Map<WriterChunk, { offset: number; field: string; delta: Counts }[]>>();
    for (const chunk of chunks) {
      for (const d of chunk.deltas) {
        for (const [id, field] of targetsOf(d.day, d.partnerId, d.field)) {
          let writers = byDoc.get(id);
          if (!writers) byDoc.set(id, (writers = new Map()));
          let list = writers.get(chunk);
          if (!list) writers.set(chunk, (list = []));
          list.push({ offset: d.offset, field, delta: d.delta });
        }
      }
    }
    await this.rounds([...byDoc.keys()], (id, doc) => {
      const cells = cellsOf(doc ?? {});
      const set: Record<string, unknown> = {};
      for (const [{ writer, lastOffset }, deltas] of byDoc.get(id) ?? []) {
        const o = doc?.o[writer] ?? -1;
        if (lastOffset <= o) continue;
        const key = isRefusalWriter(writer) ? 'r' : 'c';
        const mine = key === 'r' ? cells.refusal : cells.lead;
        for (const d of deltas) if (d.offset > o) addCounts((mine[boundedField(mine, d.field)] ??= {}), d.delta);
        set[key] = cellsText(mine);
        set[`o.${writer}`] = lastOffset;
      }
      return Object.keys(set).length > 0 ? set : null;
    });
  }

  // The rebuild: sets the lead-derived cells of the documents named (every document with lead-derived
  // cells, and every one the stored leads count into), keeping refusal cells and offsets.
  async setLeadCells(lead: ReadonlyMap<string, Cells>, ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += PAGE) {
      await this.rounds(ids.slice(i, i + PAGE), (id) => ({ c: cellsText(lead.get(id) ?? {}) }));
    }
  }

  // Every counter document's `_id` that has lead-derived cells, a page at a time (for the rebuild).
  async *leadDerivedIds(): AsyncGenerator<string[]> {
    let after = ID_FLOOR;
    for (;;) {
      const page = await this.cells
        .find({ _id: { $gt: after, $lt: ID_CEILING } }, { projection: { c: 1 } })
        .sort({ _id: 1 })
        .limit(PAGE)
        .toArray();
      const ids = page.filter((d) => d.c && d.c !== NO_CELLS).map((d) => d._id);
      if (ids.length > 0) yield ids;
      if (page.length < PAGE) return;
      after = (page[page.length - 1] as CellDoc)._id;
    }
  }

  // Every document of the former layout (`<day>|<partner>|<writer>`, `{o, c}`), a page at a time.
  async *formerLayout(): AsyncGenerator<{ _id: string; c: string }[]> {
    let after: string = FORMER_LAYOUT.$gt;
    for (;;) {
      const page = await this.cells
        .find({ _id: { $gt: after, $lt: FORMER_LAYOUT.$lt } }, { projection: { c: 1 } })
        .sort({ _id: 1 })
        .limit(PAGE)
        .toArray();
      if (page.length > 0) yield page;
      if (page.length < PAGE) return;
      after = (page[page.length - 1] as CellDoc)._id;
    }
  }

  async remove(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += PAGE) await this.cells.deleteMany({ _id: { $in: ids.slice(i, i + PAGE) } });
  }

  // Read, compute each document's new fields (null: nothing to write), write with a compare-and-set
  // on `v` (insert when absent), again for those another writer changed meanwhile (a former owner of
  // the partition, or the rebuild).
  private async rounds(
    ids: readonly string[],
    next: (id: string, doc: CellDoc | undefined) => Record<string, unknown> | null,
  ): Promise<void> {
    for (let round = 1; ; round++) {
      const seen = await findByIds(this.cells, ids);
      const ops: AnyBulkWriteOperation<CellDoc>[] = [];
      for (const id of ids) {
        const doc = seen.get(id);
        const set = next(id, doc);
        if (set === null) continue;
        ops.push(
          doc
            ? { updateOne: { filter: { _id: id, v: doc.v }, update: { $set: { ...set, v: doc.v + 1 } } } }
            : { insertOne: { document: insertion(id, set) } },
        );
      }
      if (ops.length === 0 || (await this.allApplied(ops))) return;
      if (round === ROUNDS) throw new CellsContendedError([...ids]);
      await sleep(Math.random() * 20 * round); // another writer wrote one of them: read again, a little apart
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

function insertion(id: string, set: Record<string, unknown>): CellDoc {
  const doc: CellDoc = { _id: id, v: 1, o: {}, c: NO_CELLS, r: NO_CELLS };
  for (const [field, value] of Object.entries(set)) {
    if (field.startsWith('o.')) doc.o[field.slice(2)] = value as number;
    else Object.assign(doc, { [field]: value });
  }
  return doc;
}

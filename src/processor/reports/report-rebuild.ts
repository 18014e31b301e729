import type { Collection } from 'mongodb';
import type { Logger } from '../../shared/logger';
import type { LeadDoc, PartnerDoc } from '../../shared/mongo/documents';
import { localTime } from '../../shared/local-time';
import { findByIds } from '../../shared/mongo/bulk';
import { addCounts, isEmpty, type Counts } from '../../shared/reports/cell-counts';
import { boundedField, cellField, parseFormerId, targetsOf } from '../../shared/reports/cell-keys';
import type { Cells, CellStore, OffsetDelta } from '../../shared/reports/cell-store';
import { tallyWholeLead, type StoredLead } from './event-projection';
import type { ReportLeadDoc } from './lead-tally';
import { REPORT_LEAD_PROJECTION, type ReportLeadStore } from './report-lead-store';

export interface RebuildDeps {
  cells: CellStore;
  leads: ReportLeadStore;
  leadDocs: Collection<LeadDoc>;
  partners: Collection<PartnerDoc>;
  logger: Logger;
}

export interface RebuildSummary {
  leads: number;
  cell_documents_cleared: number; // held lead-derived cells no stored lead counts into any more
  cell_documents_written: number;
  took_ms: number;
}

const PAGE = 500;
// Lead ids are `le-<n>`: every one sorts after 'le-' and before 'le.' ('.' follows '-').
const LEAD_IDS = { first: 'le-', end: 'le.' };

// Recomputes every lead-derived number of the reports from the stored leads: their history holds
// every change the events announced, and the same fold (lead-tally.ts) counts it. Every lead is read
// by `_id` range, a page at a time, its state written to report_leads and its counts summed in
// memory into its day, block and month documents (cells and totals); at the end the lead-derived cells (`c`) of every counter
// document are replaced by these sums (cleared where no lead counts any more), each write a
// compare-and-set on the document's version. Refusal cells (`r`: duplicates, validation errors)
// have no other record and are kept, as are the writers' offsets. Run it while the report projector
// is caught up and no lead changes (docs/managers.md, "Rebuilding the reports"): an event it counts
// meanwhile may be counted twice or not at all. Run again if interrupted.
export async function rebuildReports(d: RebuildDeps): Promise<RebuildSummary> {
  const started = Date.now();
  await carryOverFormerLayout(d.cells);
  const held: string[] = [];
  for await (const ids of d.cells.leadDerivedIds()) held.push(...ids);

  const zones = new Map<string, string>(); // partner id -> time zone, read by `_id` as pages name them
  const docs = new Map<string, Cells>();
  let leads = 0;
  let after = LEAD_IDS.first;
  for (;;) {
    const page = (await d.leadDocs
      .find({ _id: { $gt: after, $lt: LEAD_IDS.end } }, { projection: REPORT_LEAD_PROJECTION })
      .sort({ _id: 1 })
      .limit(PAGE)
      .toArray()) as unknown as StoredLead[];
    const states: ReportLeadDoc[] = [];
    const unknown = [...new Set(page.map((l) => l.partner_id))].filter((id) => !zones.has(id));
    const found = await findByIds(d.partners, unknown, { projection: { time_zone: 1 } });
    for (const id of unknown) zones.set(id, found.get(id)?.time_zone ?? 'UTC');
    for (const lead of page) {
      if (lead.test) continue;
      const day = localTime(lead.created_at, zones.get(lead.partner_id) ?? 'UTC').date;
      const { state, delta } = tallyWholeLead(lead, day);
      states.push(state);
      if (isEmpty(delta)) continue;
      for (const [id, field] of targetsOf(day, lead.partner_id, cellField(state.country_code, state.source)))
        addTo(docs, id, field, delta);
    }
    await d.leads.replace(states);
    leads += states.length;
    if (page.length < PAGE) break;
    after = (page[page.length - 1] as StoredLead)._id;
  }
  const cleared = held.filter((id) => !docs.has(id));
  await d.cells.setLeadCells(docs, [...docs.keys(), ...cleared]);
  const summary = {
    leads,
    cell_documents_cleared: cleared.length,
    cell_documents_written: docs.size,
    took_ms: Date.now() - started,
  };
  d.logger.info(summary, 'reports rebuilt from the stored leads');
  return summary;
}

const DAY_MS = 86_400_000;

// Moves the refusal counts of the former layout's documents (`<day>|<partner>|i<n>`, the only record of
// duplicates and validation errors) into the current ones, as writer u<n> with each document's day
// (epoch day number) as its offset, all days of a partition in one write: run again after an
// interruption, every document refuses them. Then the former documents go (their lead-derived
// counts are recomputed from the stored leads anyway).
export async function carryOverFormerLayout(cells: CellStore): Promise<number> {
  const byWriter = new Map<string, OffsetDelta[]>();
  const ids: string[] = [];
  for await (const page of cells.formerLayout()) {
    for (const doc of page) {
      ids.push(doc._id);
      const { day, partnerId, writer } = parseFormerId(doc._id);
      if (!/^i\d+$/.test(writer)) continue;
      const offset = Date.parse(`${day}T00:00:00Z`) / DAY_MS;
      const deltas = byWriter.get(writer) ?? [];
      byWriter.set(writer, deltas);
      for (const [field, delta] of Object.entries(JSON.parse(doc.c || '{}') as Cells))
        deltas.push({ offset, day, partnerId, field, delta });
    }
  }
  for (const [writer, deltas] of byWriter) {
    if (deltas.length > 0)
      await cells.addOnce([
        {
          writer: `u${writer.slice(1)}` as `u${number}`,
          deltas,
          lastOffset: deltas.reduce((m, x) => Math.max(m, x.offset), -1),
        },
      ]);
  }
  await cells.remove(ids);
  return ids.length;
}

function addTo(docs: Map<string, Cells>, id: string, field: string, delta: Counts): void {
  let cells = docs.get(id);
  if (!cells) {
    cells = {};
    docs.set(id, cells);
  }
  addCounts((cells[boundedField(cells, field)] ??= {}), delta);
}

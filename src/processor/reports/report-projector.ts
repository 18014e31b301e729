import type { Logger } from '../../shared/logger';
import type { PartnerDoc } from '../../shared/mongo/documents';
import type { CellStore, WriterChunk } from '../../shared/reports/cell-store';
import { leadWriter, refusalWriter } from '../../shared/reports/cell-keys';
import {
  leadsToRead,
  projectLeadEvents,
  projectRefusals,
  type OffsetEvent,
  type OffsetRefusal,
} from './event-projection';
import type { ReportLeadDoc } from './lead-tally';
import { partnerDays } from './partner-days';
import type { ReportLeadStore } from './report-lead-store';

export interface ReportProjectorDeps {
  cells: CellStore;
  leads: ReportLeadStore;
  partnerById(id: string): Promise<Pick<PartnerDoc, 'time_zone'> | null>;
  logger: Logger;
}

export interface ChunkResult {
  counted: number; // leads whose report state moved (lead events)
  unknown: number; // events of leads with no stored document
}

// Keeps the reports' read model from lead events and intake refusals, one chunk at a time: the chunks of
// every partition of both topics that a fetch brings are joined (report-consumer.ts), so each counter
// document of a partner's day, blocks and month is read and written once for them all. The owner of
// partition n is the only writer of its offset (`o.p<n>`, `o.i<n>`) in each of those documents.
//
// Exactly once, across crashes, replays and re-announced events:
// - an event is counted only past the lead's `through` in report_leads (re-announced or replayed
//   events carry their history index in event_id);
// - counters are written first, each counter document taking only the deltas of messages past its
//   `o.<writer>` (the partition offset last applied to it), with a compare-and-set on its version
//   `v`; report_leads second. A crash between the two replays the chunk: the states read are the old ones, so the
//   same deltas are computed again (a lead's events are all on one partition, in order, however the
//   chunk is cut or joined), and every counter document refuses them (its `o.<writer>` is past them);
//   then report_leads is written. Nothing is kept in memory between chunks.
export class ReportProjector {
  constructor(private readonly d: ReportProjectorDeps) {}

  async project(events: readonly OffsetEvent[], refusals: readonly OffsetRefusal[]): Promise<ChunkResult> {
    const known =
      events.length > 0
        ? await this.d.leads.byIds(events.map((r) => r.event.lead_id))
        : new Map<string, ReportLeadDoc>();
    const toRead = leadsToRead(events, known);
    const stored = toRead.length > 0 ? await this.d.leads.storedLeads(toRead) : new Map();
    const dayOf = await partnerDays(
      [
        ...[...known.values()].map((s) => s.partner_id),
        ...[...stored.values()].map((l) => l.partner_id),
        ...refusals.map((r) => r.refusal.partner_id),
      ],
      this.d.partnerById,
    );
    const chunks: WriterChunk[] = [];
    const changed = new Map<string, ReportLeadDoc>();
    const unknown: string[] = [];
    for (const [partition, records] of byPartition(events)) {
      const projected = projectLeadEvents(records, known, stored, dayOf);
      for (const [id, state] of projected.changed) changed.set(id, state);
      unknown.push(...projected.unknown);
      chunks.push({
        writer: leadWriter(partition),
        deltas: projected.contributions,
        lastOffset: lastOffsetOf(records),
      });
    }
    for (const [partition, records] of byPartition(refusals)) {
      chunks.push({
        writer: refusalWriter(partition),
        deltas: projectRefusals(records, dayOf),
        lastOffset: lastOffsetOf(records),
      });
    }
    if (unknown.length > 0)
      this.d.logger.warn(
        { events: unknown.slice(0, 5), count: unknown.length },
        'report projector: events of leads not stored, not counted',
      );
    const counting = chunks.filter((c) => c.deltas.length > 0);
    if (counting.length > 0) await this.d.cells.addOnce(counting);
    await this.d.leads.save(changed.values(), known);
    return { counted: changed.size, unknown: unknown.length };
  }
}

function byPartition<R extends { partition: number }>(records: readonly R[]): Map<number, R[]> {
  const out = new Map<number, R[]>();
  for (const r of records) {
    let list = out.get(r.partition);
    if (!list) out.set(r.partition, (list = []));
    list.push(r);
  }
  return out;
}

const lastOffsetOf = (records: readonly { offset: number }[]): number =>
  records.reduce((m, r) => Math.max(m, r.offset), -1);

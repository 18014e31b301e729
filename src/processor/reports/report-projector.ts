import type { Logger } from '../../shared/logger';
import type { PartnerDoc } from '../../shared/mongo/documents';
import type { WriterChunk } from '../../shared/reports/cell-store';
import type { ReportDelta } from '../../shared/schemas';
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
import { deltaMessages } from './report-deltas';
import type { ReportLeadStore } from './report-lead-store';

export interface ReportProjectorDeps {
  // Sends what a chunk adds to the repartition topic (reports.deltas, keyed by partner id), acknowledged.
  publish(deltas: readonly ReportDelta[]): Promise<void>;
  leads: ReportLeadStore;
  partnerById(id: string): Promise<Pick<PartnerDoc, 'time_zone'> | null>;
  logger: Logger;
}

export interface ChunkResult {
  counted: number; // leads whose report state moved (lead events)
  unknown: number; // events of leads with no stored document
}

// Reads lead events and intake refusals for the reports, one chunk at a time (the chunks of every
// partition of both topics that a fetch brings are joined, report-consumer.ts), and publishes what
// each partition's messages add to each partner's cells, repartitioned by partner
// (report-deltas.ts): the counter documents are written by the projector of the partner's
// partition alone (report-cell-consumer.ts).
//
// Exactly once, across crashes, replays and re-announced events:
// - an event is counted only past the lead's `through` in report_leads (re-announced or replayed
//   events carry their history index in event_id);
// - the deltas are published first, each with its source partition and offset, report_leads
//   second, then the offsets move. A crash before the offsets moved replays the chunk: with the old
//   states the same deltas are computed and published again (a lead's events are all on one
//   partition, in order, however the chunk is cut or joined), with the new ones none; every counter
//   document refuses a delta whose source offset it has applied (its `o.<writer>`, cell-store.ts).
//   Nothing is kept in memory between chunks.
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
    const chunks: Pick<WriterChunk, 'writer' | 'deltas'>[] = [];
    const changed = new Map<string, ReportLeadDoc>();
    const unknown: string[] = [];
    for (const [partition, records] of byPartition(events)) {
      const projected = projectLeadEvents(records, known, stored, dayOf);
      for (const [id, state] of projected.changed) changed.set(id, state);
      unknown.push(...projected.unknown);
      chunks.push({
        writer: leadWriter(partition),
        deltas: projected.contributions,
      });
    }
    for (const [partition, records] of byPartition(refusals)) {
      chunks.push({
        writer: refusalWriter(partition),
        deltas: projectRefusals(records, dayOf),
      });
    }
    if (unknown.length > 0)
      this.d.logger.warn(
        { events: unknown.slice(0, 5), count: unknown.length },
        'report projector: events of leads not stored, not counted',
      );
    const deltas = deltaMessages(chunks);
    if (deltas.length > 0) await this.d.publish(deltas);
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

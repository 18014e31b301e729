import type { Logger } from '../../shared/logger';
import type { PartnerDoc } from '../../shared/mongo/documents';
import type { CellStore } from '../../shared/reports/cell-store';
import { leadWriter, refusalWriter } from '../../shared/reports/cell-keys';
import { leadsToRead, projectLeadEvents, projectRefusals, type OffsetEvent, type OffsetRefusal } from './event-projection';
import { partnerDays } from './partner-days';
import type { ReportLeadStore } from './report-lead-store';

export interface ReportProjectorDeps {
  cells: CellStore;
  leads: ReportLeadStore;
  partnerById(id: string): Promise<Pick<PartnerDoc, 'time_zone'> | null>;
  logger: Logger;
}

export interface ChunkResult {
  counted: number; // leads whose report state moved (lead events), or refusals counted
  unknown: number; // events of leads with no stored document
}

// Keeps the reports' read model from lead events and intake refusals, one chunk of one partition
// at a time; the partition's owner is the only writer of its offset (`o.p<n>`, `o.i<n>`) in each
// counter document of a partner's day, blocks and month.
//
// Exactly once, across crashes, replays and re-announced events:
// - an event is counted only past the lead's `through` in report_leads (re-announced or replayed
//   events carry their history index in event_id);
// - counters are written first, each counter document taking only the deltas of messages past its
//   `o.<writer>` (the partition offset last applied to it), with a compare-and-set on its version
//   `v`; report_leads second. A crash between the two replays the chunk: the states read are the old ones, so the
//   same deltas are computed again, and every counter document refuses them (its `o.<writer>` is past them);
//   then report_leads is written. Nothing is kept in memory between chunks.
export class ReportProjector {
  constructor(private readonly d: ReportProjectorDeps) {}

  async leadEvents(records: readonly OffsetEvent[], partition: number): Promise<ChunkResult> {
    if (records.length === 0) return { counted: 0, unknown: 0 };
    const known = await this.d.leads.byIds(records.map((r) => r.event.lead_id));
    const toRead = leadsToRead(records, known);
    const stored = toRead.length > 0 ? await this.d.leads.storedLeads(toRead) : new Map();
    const partners = [...[...known.values()].map((s) => s.partner_id), ...[...stored.values()].map((l) => l.partner_id)];
    const dayOf = await partnerDays(partners, this.d.partnerById);
    const projected = projectLeadEvents(records, known, stored, dayOf);
    if (projected.unknown.length > 0) this.d.logger.warn({ events: projected.unknown.slice(0, 5), count: projected.unknown.length }, 'report projector: events of leads not stored, not counted');
    const lastOffset = Math.max(...records.map((r) => r.offset));
    if (projected.contributions.length > 0) await this.d.cells.addOnce(leadWriter(partition), projected.contributions, lastOffset);
    await this.d.leads.save(projected.changed.values());
    return { counted: projected.changed.size, unknown: projected.unknown.length };
  }

  async refusals(records: readonly OffsetRefusal[], partition: number): Promise<ChunkResult> {
    if (records.length === 0) return { counted: 0, unknown: 0 };
    const dayOf = await partnerDays(records.map((r) => r.refusal.partner_id), this.d.partnerById);
    const contributions = projectRefusals(records, dayOf);
    await this.d.cells.addOnce(refusalWriter(partition), contributions, Math.max(...records.map((r) => r.offset)));
    return { counted: records.length, unknown: 0 };
  }
}

import type { BatchConsumer } from '../../shared/kafka/batch-consumer';
import type { DocumentLocks } from '../../shared/redis/document-locks';
import type { RoleClients } from '../../shared/role';
import { CellStore, cellsCollection } from '../../shared/reports/cell-store';
import { startReportConsumer } from './report-consumer';
import { ReportLeadStore } from './report-lead-store';
import { ReportProjector } from './report-projector';
import { rebuildReports, type RebuildSummary } from './report-rebuild';

// What the rebuild reads and writes with.
export interface RebuildDeps extends Pick<RoleClients, 'mongo' | 'logger'> {
  locks: DocumentLocks;
}

// What the projector is given: the rebuild's stores, the partners, and its consumer's clients.
export interface ReportsDeps extends RebuildDeps, Pick<RoleClients, 'consumers' | 'partners' | 'metrics'> {}

// The reports' face: the projector's consumer (started by the processor role) and the rebuild
// (the manager CLI's rebuild-reports, and tests).
export function startReports(d: ReportsDeps): Promise<BatchConsumer> {
  const projector = new ReportProjector({
    cells: new CellStore(cellsCollection(d.mongo.db), d.locks),
    leads: new ReportLeadStore(d.mongo.db, d.mongo.collections.leads),
    partnerById: (id) => d.partners.byId(id),
    logger: d.logger.child({ component: 'reports' }),
  });
  return startReportConsumer({ consumers: d.consumers, projector, metrics: d.metrics, logger: d.logger });
}

export function rebuildReportsOf(d: RebuildDeps): Promise<RebuildSummary> {
  return rebuildReports({
    cells: new CellStore(cellsCollection(d.mongo.db), d.locks),
    leads: new ReportLeadStore(d.mongo.db, d.mongo.collections.leads),
    leadDocs: d.mongo.collections.leads,
    partners: d.mongo.collections.partners,
    logger: d.logger,
  });
}

export type { RebuildSummary };

import type { Runtime } from '../../shared/runtime';
import type { BatchConsumer } from '../../shared/kafka/batch-consumer';
import { CellStore, cellsCollection } from '../../shared/reports/cell-store';
import { startReportConsumer } from './report-consumer';
import { ReportLeadStore } from './report-lead-store';
import { ReportProjector } from './report-projector';
import { rebuildReports, type RebuildSummary } from './report-rebuild';

// The reports' face: the projector's consumer (started by the processor role) and the rebuild
// (the manager CLI's rebuild-reports, and tests).
export function startReports(rt: Runtime): Promise<BatchConsumer> {
  const projector = new ReportProjector({
    cells: new CellStore(cellsCollection(rt.mongo.db), rt.locks),
    leads: new ReportLeadStore(rt.mongo.db, rt.mongo.collections.leads),
    partnerById: (id) => rt.partners.byId(id),
    logger: rt.logger.child({ component: 'reports' }),
  });
  return startReportConsumer({ consumers: rt.consumers, projector, metrics: rt.metrics, logger: rt.logger });
}

export function rebuildReportsOf(rt: Pick<Runtime, 'mongo' | 'logger' | 'locks'>): Promise<RebuildSummary> {
  return rebuildReports({
    cells: new CellStore(cellsCollection(rt.mongo.db), rt.locks),
    leads: new ReportLeadStore(rt.mongo.db, rt.mongo.collections.leads),
    leadDocs: rt.mongo.collections.leads,
    partners: rt.mongo.collections.partners,
    logger: rt.logger,
  });
}

export type { RebuildSummary };

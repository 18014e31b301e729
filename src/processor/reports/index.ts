import type { BatchConsumer } from '../../shared/kafka/batch-consumer';
import type { RoleClients } from '../../shared/role';
import { CellStore, cellsCollection } from '../../shared/reports/cell-store';
import type { ReportDelta } from '../../shared/schemas';
import { startReportCellConsumer } from './report-cell-consumer';
import { startReportConsumer } from './report-consumer';
import { ReportLeadStore } from './report-lead-store';
import { ReportProjector } from './report-projector';
import { rebuildReports, type RebuildSummary } from './report-rebuild';

// What the rebuild reads and writes with.
export type RebuildDeps = Pick<RoleClients, 'mongo' | 'logger'>;

// What the projectors are given: the rebuild's stores, the partners, and their clients.
export interface ReportsDeps
  extends RebuildDeps, Pick<RoleClients, 'consumers' | 'partners' | 'metrics' | 'producer' | 'codec' | 'topics'> {}

// The reports' face: the reading of lead events and refusals into deltas repartitioned by partner,
// and the counter documents' projector over them (both started by the processor role); the rebuild
// (the manager CLI's rebuild-reports, and tests).
export async function startReports(d: ReportsDeps): Promise<BatchConsumer[]> {
  const logger = d.logger.child({ component: 'reports' });
  const publish = async (deltas: readonly ReportDelta[]) => {
    const messages = await Promise.all(
      deltas.map(async (m) => ({ key: m.partner_id, value: await d.codec.encode('reportDeltas', m) })),
    );
    await d.producer.sendBatch({ topicMessages: [{ topic: d.topics.reportDeltas, messages }] });
  };
  const projector = new ReportProjector({
    publish,
    leads: new ReportLeadStore(d.mongo.db, d.mongo.collections.leads),
    partnerById: (id) => d.partners.byId(id),
    logger,
  });
  const cells = new CellStore(cellsCollection(d.mongo.db));
  return [
    await startReportCellConsumer({ consumers: d.consumers, cells, metrics: d.metrics, logger }),
    await startReportConsumer({ consumers: d.consumers, projector, metrics: d.metrics, logger: d.logger }),
  ];
}

export function rebuildReportsOf(d: RebuildDeps): Promise<RebuildSummary> {
  return rebuildReports({
    cells: new CellStore(cellsCollection(d.mongo.db)),
    leads: new ReportLeadStore(d.mongo.db, d.mongo.collections.leads),
    leadDocs: d.mongo.collections.leads,
    partners: d.mongo.collections.partners,
    logger: d.logger,
  });
}

export type { RebuildSummary };

import { Counter, type Registry } from 'prom-client';
import { startBatchConsumer, type BatchConsumer, type BatchConsumerDeps } from '../../shared/kafka/batch-consumer';
import type { Logger } from '../../shared/logger';
import type { CellStore } from '../../shared/reports/cell-store';
import type { ReportDelta } from '../../shared/schemas';
import { REPORT_FETCH } from './report-consumer';
import { writerChunks } from './report-deltas';

export interface ReportCellConsumerDeps {
  consumers: BatchConsumerDeps;
  cells: Pick<CellStore, 'addOnce'>;
  metrics: Registry;
  logger: Logger;
}

export const REPORT_CELLS_GROUP = 'processor-report-cells';

// The one writer of each partner's counter documents: the member that owns the partner's partition
// of reports.deltas (keyed by partner id) adds the chunk's deltas (cell-store.ts addOnce), and only
// then do the offsets move. A crash between the two reads the chunk again: each document refuses
// the deltas whose source offset it has applied (`o.<writer>`), so nothing counts twice.
export function startReportCellConsumer(deps: ReportCellConsumerDeps): Promise<BatchConsumer> {
  const messages = new Counter({
    name: 'lead_intake_report_delta_messages_total',
    help: 'Report delta messages the counter documents projector read, by outcome (counted, undecodable, poison: failed alone again and again)',
    labelNames: ['outcome'],
    registers: [deps.metrics],
  });
  return startBatchConsumer<ReportDelta>(deps.consumers, {
    group: REPORT_CELLS_GROUP,
    topics: ['reportDeltas'],
    ...REPORT_FETCH,
    async handle(records) {
      const chunks = writerChunks(records.map((r) => r.value));
      if (chunks.length > 0) await deps.cells.addOnce(chunks);
      messages.inc({ outcome: 'counted' }, records.length);
    },
    // A message the store refuses alone, again and again (a bug): counted and logged, and the
    // partition goes on; the rebuild recounts the leads' numbers.
    async poison(record, err, ctx) {
      messages.inc({ outcome: 'poison' });
      deps.logger.error(
        { partition: ctx.partition, offset: record.message.offset, err: (err as Error).message },
        'report cells: delta message skipped after failing alone',
      );
    },
    async undecodable(items, ctx) {
      // Only the processor writes this topic: a bug to see, never retried.
      messages.inc({ outcome: 'undecodable' }, items.length);
      for (const { message, error } of items)
        deps.logger.error(
          { partition: ctx.partition, offset: message.offset, reason: error.reason },
          'report cells: undecodable delta message skipped',
        );
    },
  });
}

import { Counter, type Registry } from 'prom-client';
import { startBatchConsumer, type BatchConsumer, type BatchConsumerDeps } from '../../shared/kafka/batch-consumer';
import type { Logger } from '../../shared/logger';
import type { IntakeRefusal, LeadEvent } from '../../shared/schemas';
import type { OffsetEvent, OffsetRefusal } from './event-projection';
import type { ReportProjector } from './report-projector';

export interface ReportConsumerDeps {
  consumers: BatchConsumerDeps;
  projector: ReportProjector;
  metrics: Registry;
  logger: Logger;
}

export const REPORTS_GROUP = 'processor-reports';

// How both report consumers fetch: a fetch waits (up to the consumers' maxWaitTimeInMs, a second)
// until 1 MiB is there, and the chunks of every partition it brings are joined into one, so each
// step runs about once a second whatever the load (a delta message per partner and source partition,
// a rewrite of each partner's day, block and month documents), not once per store round trip.
export const REPORT_FETCH = { mergePartitionsMs: 20, chunkSize: 2000, consumer: { minBytes: 1 << 20 } } as const;

// The reports' own consumer group over lead events and intake refusals: the chunks of every partition a
// fetch brings, joined into one, counted by the projector into report deltas (published to
// reports.deltas, keyed by partner id), then their offsets move. No other role waits for it: a slow
// store only makes the reports lag (lead_intake_consumer_lag).
export function startReportConsumer(deps: ReportConsumerDeps): Promise<BatchConsumer> {
  const messages = new Counter({
    name: 'lead_intake_report_messages_total',
    help: 'Messages the report projector read, by topic and outcome (counted, unknown_lead: an event of a lead not stored, undecodable, poison: failed alone again and again)',
    labelNames: ['topic', 'outcome'],
    registers: [deps.metrics],
  });
  return startBatchConsumer<LeadEvent | IntakeRefusal>(deps.consumers, {
    group: REPORTS_GROUP,
    topics: ['leadEvents', 'intakeRefusals'],
    ...REPORT_FETCH,
    async handle(records) {
      const events: OffsetEvent[] = [];
      const refusals: OffsetRefusal[] = [];
      for (const r of records) {
        const at = { partition: r.partition, offset: Number(r.message.offset) };
        if (r.topic === 'leadEvents') events.push({ ...at, event: r.value as LeadEvent });
        else refusals.push({ ...at, refusal: r.value as IntakeRefusal });
      }
      const result = await deps.projector.project(events, refusals);
      if (events.length > 0) messages.inc({ topic: 'lead_events', outcome: 'counted' }, events.length - result.unknown);
      if (result.unknown > 0) messages.inc({ topic: 'lead_events', outcome: 'unknown_lead' }, result.unknown);
      if (refusals.length > 0) messages.inc({ topic: 'intake_refusals', outcome: 'counted' }, refusals.length);
    },
    // A message the projector fails on alone, again and again, for a reason that does not pass (a
    // bug): counted and logged, and the partition goes on; the rebuild recounts the leads' numbers.
    async poison(record, err, ctx) {
      messages.inc({ topic: ctx.topic === 'leadEvents' ? 'lead_events' : 'intake_refusals', outcome: 'poison' });
      deps.logger.error(
        { topic: ctx.topic, partition: ctx.partition, offset: record.message.offset, err: (err as Error).message },
        'report projector: message skipped after failing alone',
      );
    },
    async undecodable(items, ctx) {
      // Only our own roles write these topics: a bug to see, never retried.
      messages.inc(
        { topic: ctx.topic === 'leadEvents' ? 'lead_events' : 'intake_refusals', outcome: 'undecodable' },
        items.length,
      );
      for (const { message, error } of items)
        deps.logger.error(
          { topic: ctx.topic, offset: message.offset, reason: error.reason },
          'report projector: undecodable message skipped',
        );
    },
  });
}

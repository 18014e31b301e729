import type { Message, Producer } from 'kafkajs';
import type { BatchConsumer, BatchConsumerDeps } from '../shared/kafka/batch-consumer';
import { startBatchConsumer } from '../shared/kafka/batch-consumer';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { Logger } from '../shared/logger';
import { testLabel } from '../shared/mongo/documents';
import type { IntakeCommand, IntakeReply } from '../shared/schemas';
import { announcementMessages } from './announcement-messages';
import { CAP_REASON_PREFIX } from './caps';
import { deadLetterMessage } from './dead-letter';
import type { IdleChecks } from './idle-checks';
import type { IntakeBatch } from './intake/batch';
import type { ProcessorMetrics } from './metrics';
import type { Clock } from '../shared/clock';

export interface IntakeConsumerDeps {
  consumers: BatchConsumerDeps;
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
  batch: IntakeBatch;
  idleChecks: IdleChecks;
  metrics: ProcessorMetrics;
  logger: Logger;
  clock: Clock;
}

// Consumes intake commands a chunk at a time: decides the chunk in bulk, sends every reply, lead event
// and assignment feed message it made in one produce request, then stores the decisions; the offsets
// move only after that. A crash before the decisions are stored replays the chunk, which finds its
// own claims and leads and publishes the same event ids again.
export function startIntakeConsumer(deps: IntakeConsumerDeps): Promise<BatchConsumer> {
  const { metrics, logger, clock } = deps;
  return startBatchConsumer<IntakeCommand>(deps.consumers, {
    group: 'processor-intake',
    topics: ['intakeCommands'],
    // A chunk costs the same few database commands whatever its size: under light load the six
    // partitions' one-or-two-command batches are decided together.
    mergePartitionsMs: 5,
    async handle(records) {
      const timer = metrics.intakeDecisionSeconds.startTimer();
      metrics.intakeChunkSize.observe(records.length);
      const chunk = await deps.batch.decide(
        records.map((r) => r.value),
        clock.now(),
      );
      const replies = await Promise.all(
        chunk.replies.map(async ({ cmd, decision }): Promise<Message> => {
          const reply: IntakeReply = {
            correlation_id: cmd.correlation_id,
            reply_to: cmd.reply_to,
            partner_id: cmd.partner_id,
            idempotency_key: cmd.idempotency_key,
            decision,
          };
          return { key: cmd.reply_to, value: await deps.codec.encode('intakeReplies', reply) };
        }),
      );
      const said = await announcementMessages(deps.codec, deps.topics, chunk);
      const checks = await deps.idleChecks.messages(chunk.idle, clock.now());
      await deps.producer.sendBatch({
        topicMessages: [
          { topic: deps.topics.intakeReplies, messages: replies },
          ...said,
          { topic: deps.topics.idleChecks, messages: checks },
        ].filter((t) => t.messages.length > 0),
      });
      await deps.batch.storeDecisions(chunk.decisions, clock.now());
      timer();
      for (const { cmd, decision, test } of chunk.replies) {
        metrics.intakeDecisions.inc({ outcome: decision.replay ? 'replay' : decision.outcome, test: testLabel(test) });
        if (!decision.replay && decision.reason?.startsWith(CAP_REASON_PREFIX)) {
          metrics.capRejections.inc({
            partner_id: cmd.partner_id,
            scope: decision.reason.slice(CAP_REASON_PREFIX.length),
          });
        }
      }
      for (const e of chunk.events) metrics.leadEvents.inc({ event: e.event, test: testLabel(e.test) });
      for (const [outcome, n] of Object.entries(chunk.assignments)) if (n > 0) metrics.assignments.inc({ outcome }, n);
      if (chunk.undecided.length > 0) {
        metrics.intakeDecisions.inc({ outcome: 'undecided', test: 'false' }, chunk.undecided.length);
        logger.warn(
          { count: chunk.undecided.length },
          'intake commands left undecided: a claim is held by a command still being decided',
        );
      }
    },
    // A command the processor fails on again and again (a bug, a partner document it cannot read):
    // to the intake dead-letter topic with its reason, and the waiting ingress answers 503 at once,
    // so the partner retries instead of waiting out the reply timeout. Nothing was stored for it.
    async poison({ value: cmd, message }, err, ctx) {
      const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      await deps.batch.abandon(cmd, clock.now());
      const reply: IntakeReply = {
        correlation_id: cmd.correlation_id,
        reply_to: cmd.reply_to,
        partner_id: cmd.partner_id,
        idempotency_key: cmd.idempotency_key,
        decision: {
          outcome: 'failed',
          lead_id: null,
          reason: 'processing_failed',
          body_hash: cmd.body_hash,
          replay: false,
        },
      };
      await deps.producer.sendBatch({
        topicMessages: [
          {
            topic: deps.topics.intakeDeadLetter,
            messages: [
              deadLetterMessage(
                deps.topics.intakeCommands,
                ctx.partition,
                message,
                'processing_failed',
                detail,
                clock.now(),
              ),
            ],
          },
          {
            topic: deps.topics.intakeReplies,
            messages: [{ key: cmd.reply_to, value: await deps.codec.encode('intakeReplies', reply) }],
          },
        ],
      });
      metrics.intakeDeadLetters.inc();
      metrics.intakeDecisions.inc({ outcome: 'dead_lettered', test: 'false' });
    },
    async undecodable(items) {
      // Only our own ingress writes here; an undecodable command is a bug to see, not to retry.
      metrics.intakeDecisions.inc({ outcome: 'undecodable', test: 'false' }, items.length);
      for (const { message, error } of items)
        logger.error({ offset: message.offset, reason: error.reason }, 'undecodable intake command skipped');
    },
  });
}

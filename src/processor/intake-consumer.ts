import type { Consumer } from 'kafkajs';
import { createConsumer } from '../shared/kafka/client';
import { consumerReadiness } from '../shared/kafka/consumer-health';
import type { ReadinessCheck } from '../shared/http/ops-routes';
import { DecodeError } from '../shared/kafka/codec';
import type { Runtime } from '../shared/runtime';
import type { IntakeCommand, IntakeReply } from '../shared/schemas';
import type { Distributor } from './distributor';
import type { EventRelay } from './event-relay';
import type { IntakeDecider } from './intake-decider';
import type { ProcessorMetrics } from './metrics';

// Consumes intake commands, decides each, answers the waiting ingress instance and then publishes
// the lead's events and distributes it. Offsets are committed after a message is fully handled
// (at least once); the decider is idempotent, so a redelivered command changes nothing.
export async function startIntakeConsumer(
  rt: Runtime, decider: IntakeDecider, relay: EventRelay, distributor: Distributor, metrics: ProcessorMetrics,
): Promise<{ consumer: Consumer; readiness: ReadinessCheck }> {
  const consumer = createConsumer(rt.kafka, rt.config, 'processor-intake');
  const readiness = consumerReadiness('processor-intake', consumer);
  await consumer.connect();
  await consumer.subscribe({ topic: rt.topics.intakeCommands, fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: 6,
    eachMessage: async ({ message }) => {
      let cmd: IntakeCommand;
      try {
        cmd = await rt.codec.decode<IntakeCommand>('intakeCommands', message.value);
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        // Only our own ingress writes here; an undecodable command is a bug to see, not to retry.
        metrics.intakeDecisions.inc({ outcome: 'undecodable' });
        rt.logger.error({ offset: message.offset, reason: err.reason }, 'undecodable intake command skipped');
        return;
      }
      const timer = metrics.intakeDecisionSeconds.startTimer();
      const { decision, lead } = await decider.decide(cmd, new Date());
      timer();
      metrics.intakeDecisions.inc({ outcome: decision.replay ? 'replay' : decision.outcome });
      const reply: IntakeReply = {
        correlation_id: cmd.correlation_id, reply_to: cmd.reply_to, partner_id: cmd.partner_id, idempotency_key: cmd.idempotency_key, decision,
      };
      await rt.producer.send({
        topic: rt.topics.intakeReplies,
        messages: [{ key: cmd.reply_to, value: await rt.codec.encode('intakeReplies', reply) }],
      });
      if (lead) {
        await relay.publish(lead);
        if (lead.status === 'new') await distributor.assign(lead);
      }
    },
  });
  return { consumer, readiness };
}

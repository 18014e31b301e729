import type { Consumer } from 'kafkajs';
import { createConsumer } from '../shared/kafka/client';
import { consumerReadiness } from '../shared/kafka/consumer-health';
import type { ReadinessCheck } from '../shared/http/ops-routes';
import { DecodeError } from '../shared/kafka/codec';
import type { Runtime } from '../shared/runtime';
import type { AgentAction, Deposit } from '../shared/schemas';
import { deadLetter } from './dead-letter';
import type { ApplyResult, Lifecycle } from './lifecycle';
import type { ProcessorMetrics } from './metrics';

// Consumes the CRM topics (agent actions, deposits). Nothing a CRM sends can crash or block this
// consumer: an undecodable message, an unknown lead or a move the status catalogue forbids goes to
// the dead-letter topic with its reason, and the consumer moves on.
export async function startCrmConsumer(
  rt: Runtime, lifecycle: Lifecycle, metrics: ProcessorMetrics,
): Promise<{ consumer: Consumer; readiness: ReadinessCheck }> {
  const consumer = createConsumer(rt.kafka, rt.config, 'processor-crm');
  const readiness = consumerReadiness('processor-crm', consumer);
  await consumer.connect();
  await consumer.subscribe({ topics: [rt.topics.agentActions, rt.topics.deposits], fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: 6,
    eachMessage: async ({ topic, partition, message }) => {
      const label = topic === rt.topics.deposits ? 'deposits' : 'agent_actions';
      let result: ApplyResult;
      try {
        result = topic === rt.topics.deposits
          ? await lifecycle.applyDeposit(await rt.codec.decode<Deposit>('deposits', message.value))
          : await lifecycle.applyAgentAction(await rt.codec.decode<AgentAction>('agentActions', message.value));
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        result = { kind: 'refused', reason: err.reason === 'not_wire_format' ? 'malformed_message' : 'schema_violation' };
        await deadLetter(rt, topic, partition, message, result.reason, err.message);
        metrics.crmDeadLetters.inc({ topic: label, reason: result.reason });
        metrics.crmMessages.inc({ topic: label, outcome: 'dead_lettered' });
        return;
      }
      if (result.kind === 'refused') {
        await deadLetter(rt, topic, partition, message, result.reason, result.reason);
        metrics.crmDeadLetters.inc({ topic: label, reason: result.reason });
        metrics.crmMessages.inc({ topic: label, outcome: 'dead_lettered' });
        return;
      }
      metrics.crmMessages.inc({ topic: label, outcome: result.kind });
    },
  });
  return { consumer, readiness };
}

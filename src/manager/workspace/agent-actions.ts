import type { Producer } from 'kafkajs';
import type { TopicCodec } from '../../shared/kafka/codec';
import type { TopicNames } from '../../shared/kafka/topics';
import type { AgentAction } from '../../shared/schemas';

// The workspace publishes an agent's outcome on crm.agent-actions as any CRM does (the registered
// schema, keyed by lead id), so the lead's owner applies it on the one path every outcome takes.
export class AgentActions {
  constructor(private readonly d: { producer: Producer; codec: TopicCodec; topics: TopicNames }) {}

  async publish(action: AgentAction): Promise<void> {
    const value = await this.d.codec.encode('agentActions', action);
    await this.d.producer.send({ topic: this.d.topics.agentActions, messages: [{ key: action.lead_id, value }] });
  }
}

import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import type { TopicCodec } from '../shared/kafka/codec';
import type { TopicNames } from '../shared/kafka/topics';
import type { LeadCommand } from '../shared/schemas';

export interface LeadCommandsDeps {
  producer: Producer;
  codec: TopicCodec;
  topics: TopicNames;
}

// The processor's public face for changes asked of a lead by the service itself (assignment,
// parked messages, erasure): commands on leads.commands keyed by lead id, applied by the lead's one
// owner like any CRM message. The manager and the processor's own clock both send them here.
export class LeadCommands {
  constructor(private readonly d: LeadCommandsDeps) {}

  async publish(cmds: readonly LeadCommand[]): Promise<void> {
    if (cmds.length === 0) return;
    const messages = await Promise.all(
      cmds.map(async (cmd) => ({ key: cmd.lead_id, value: await this.d.codec.encode('leadCommands', cmd) })),
    );
    await this.d.producer.sendBatch({ topicMessages: [{ topic: this.d.topics.leadCommands, messages }] });
  }
}

export function leadCommand(
  leadId: string,
  kind: LeadCommand['kind'],
  now: Date,
  extra: Pick<LeadCommand, 'parked_id' | 'requested_by' | 'to_agent_id'> = {},
): LeadCommand {
  return { command_id: randomUUID(), lead_id: leadId, kind, issued_at: now.toISOString(), ...extra };
}

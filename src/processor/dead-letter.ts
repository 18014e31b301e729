import type { KafkaMessage } from 'kafkajs';
import type { Runtime } from '../shared/runtime';

// A CRM message we cannot apply goes, unchanged, to the dead-letter topic with the reason in its
// headers, so the CRM team can see what was refused and replay it once fixed.
export async function deadLetter(rt: Runtime, sourceTopic: string, partition: number, message: KafkaMessage, reason: string, detail: string): Promise<void> {
  await rt.producer.send({
    topic: rt.topics.crmDeadLetter,
    messages: [{
      key: message.key,
      value: message.value,
      headers: {
        'x-dead-letter-reason': reason,
        'x-dead-letter-detail': detail.slice(0, 1000),
        'x-source-topic': sourceTopic,
        'x-source-partition': String(partition),
        'x-source-offset': message.offset,
        'x-dead-lettered-at': new Date().toISOString(),
      },
    }],
  });
}

import type { KafkaMessage, Message } from 'kafkajs';

// A message we cannot apply (a CRM message, an intake command) goes, unchanged, to its dead-letter
// topic with the reason in its headers, so its senders can see what was refused and replay it once fixed.
export function deadLetterMessage(
  sourceTopic: string,
  partition: number,
  message: KafkaMessage,
  reason: string,
  detail: string,
  now: Date,
): Message {
  return {
    key: message.key,
    value: message.value,
    headers: {
      'x-dead-letter-reason': reason,
      'x-dead-letter-detail': detail.slice(0, 1000),
      'x-source-topic': sourceTopic,
      'x-source-partition': String(partition),
      'x-source-offset': message.offset,
      'x-dead-lettered-at': now.toISOString(),
    },
  };
}

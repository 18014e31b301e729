import type { Message, Producer, ProducerRecord, RecordMetadata } from 'kafkajs';

// Bounds of one coalesced produce request (the broker refuses record batches over 1 MB by default).
const MAX_MESSAGES = 500;
const MAX_BYTES = 512 * 1024;

interface Pending {
  record: ProducerRecord;
  bytes: number;
  resolve(meta: RecordMetadata[]): void;
  reject(err: unknown): void;
}

// The producer allows one produce request in flight per broker (client.ts), and kafkajs makes one
// request per send(): concurrent sends (one per intake request in the ingress) wait in line for a
// broker round trip each. This lets the sends that arrive while a request is in flight leave
// together in the next one (sendBatch), in call order. A send on an idle producer leaves in the same
// turn, with the sends made in that turn. Each caller's promise settles with its own request's
// outcome; a send with its own acks, timeout or compression is passed through unchanged.
export function coalesceSends(producer: Producer): Producer {
  const queue: Pending[] = [];
  let flushing = false;

  // Runs while `flushing`, which send() sets when it schedules it.
  const flush = async (): Promise<void> => {
    try {
      while (queue.length > 0) {
        const batch = takeBatch(queue);
        const byTopic = new Map<string, Message[]>();
        for (const p of batch) {
          const messages = byTopic.get(p.record.topic) ?? [];
          messages.push(...p.record.messages);
          byTopic.set(p.record.topic, messages);
        }
        try {
          const meta = await producer.sendBatch({
            topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
          });
          for (const p of batch) p.resolve(meta.filter((m) => m.topicName === p.record.topic));
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      flushing = false;
    }
  };

  const send = (record: ProducerRecord): Promise<RecordMetadata[]> => {
    if (record.acks !== undefined || record.timeout !== undefined || record.compression !== undefined)
      return producer.send(record);
    return new Promise<RecordMetadata[]>((resolve, reject) => {
      queue.push({ record, bytes: sizeOf(record.messages), resolve, reject });
      // Sends made in the same turn (an intake cohort's commands) leave in the same request.
      if (!flushing) {
        flushing = true;
        queueMicrotask(() => void flush());
      }
    });
  };

  return { ...producer, send };
}

function takeBatch(queue: Pending[]): Pending[] {
  let messages = 0;
  let bytes = 0;
  let n = 0;
  for (const p of queue) {
    if (n > 0 && (messages + p.record.messages.length > MAX_MESSAGES || bytes + p.bytes > MAX_BYTES)) break;
    messages += p.record.messages.length;
    bytes += p.bytes;
    n++;
  }
  return queue.splice(0, n);
}

function sizeOf(messages: Message[]): number {
  let bytes = 0;
  for (const m of messages) bytes += byteLength(m.value) + byteLength(m.key) + 64;
  return bytes;
}

function byteLength(v: Buffer | string | null | undefined): number {
  if (v === null || v === undefined) return 0;
  return typeof v === 'string' ? Buffer.byteLength(v) : v.length;
}

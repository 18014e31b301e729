import type { Producer } from 'kafkajs';
import type { Logger } from '../logger';

// kafkajs 2.2.4 retries a produce request that failed in part only towards the brokers that did not
// answer (producer/sendMessages.js): messages whose partition leader moved to a broker that had
// answered are never sent, and the send succeeds without them (tulios/kafkajs#1798; the 3-broker
// failover drill lost lead events so). The producer therefore retries nothing itself (client.ts) and
// a send that failed for a passing reason is sent again here, whole, through the fresh metadata
// kafkajs loaded when it failed. Messages the brokers that answered had written are written twice,
// right after themselves: every consumer fences them by the `_id` it writes under.
export interface SendRetry {
  retries: number;
  initialMs: number;
  maxMs: number;
}

export function retryWholeSends(producer: Producer, retry: SendRetry, logger: Logger, pause = sleep): Producer {
  const again =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      for (let attempt = 0, waitMs = retry.initialMs; ; attempt++, waitMs = Math.min(waitMs * 2, retry.maxMs)) {
        try {
          return await call(...args);
        } catch (err) {
          if (!passing(err) || attempt >= retry.retries) throw err;
          logger.warn({ err: (err as Error).message, attempt: attempt + 1 }, 'a send failed: sending it again whole');
          await pause(jitter(waitMs));
        }
      }
    };
  return {
    ...producer,
    send: again((record: Parameters<Producer['send']>[0]) => producer.send(record)),
    sendBatch: again((batch: Parameters<Producer['sendBatch']>[0]) => producer.sendBatch(batch)),
  };
}

// With no retries of its own, kafkajs wraps a failure it would have retried in
// KafkaJSNumberOfRetriesExceeded, and one it would not (a message too large) in KafkaJSNonRetriableError.
function passing(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'KafkaJSNumberOfRetriesExceeded';
}

function jitter(ms: number): number {
  return Math.round(ms * (0.8 + Math.random() * 0.4));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

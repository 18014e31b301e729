import type { Producer } from 'kafkajs';
import type { Logger } from '../logger';

// kafkajs's idempotent producer keeps its producer id and sequence numbers for its whole life. After a
// partition leader moves (a broker failover) the new leader can refuse a sequence it did not expect,
// and kafkajs neither resets the sequence nor takes a new id: every later send fails the same way
// ("The broker received an out of order sequence number"), and a consumer that publishes through it
// fails its batch again and again. A producer the broker refuses like that is replaced by a new one
// (a new producer id, sequences from zero). Nothing is lost or doubled by it: the sends that failed
// are sent again by their callers (a chunk is replayed, a publish is retried), and a message the old
// producer wrote after all is fenced by the `_id`s its consumers write under.
const REFUSED_PRODUCER = new Map<string, string>([
  ['OUT_OF_ORDER_SEQUENCE_NUMBER', 'The broker received an out of order sequence number'],
  ['UNKNOWN_PRODUCER_ID', 'could not locate the producer metadata'],
  ['INVALID_PRODUCER_EPOCH', 'old epoch'],
  ['INVALID_PRODUCER_ID_MAPPING', 'producer ID mapping is invalid'],
]);

export function refusesProducer(err: unknown): boolean {
  for (let e = err as { type?: string; message?: string; cause?: unknown; originalError?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.type && REFUSED_PRODUCER.has(e.type)) return true;
    if (typeof e.message === 'string' && [...REFUSED_PRODUCER.values()].some((m) => e!.message!.includes(m))) return true;
    e = (e.cause ?? e.originalError) as typeof e;
  }
  return false;
}

// A producer whose sends go to the current one of `make`'s producers, replaced when the broker
// refuses its state. The failed send still rejects: its caller sends again, through the new one.
export async function renewingProducer(make: () => Promise<Producer>, logger: Logger): Promise<Producer> {
  let current = await make();
  let renewing: Promise<void> | null = null;
  const renew = (failed: Producer): Promise<void> => {
    if (current !== failed) return renewing ?? Promise.resolve(); // replaced already
    renewing ??= (async () => {
      logger.warn('the broker refused the producer\'s sequence: replacing it with a new producer');
      await failed.disconnect().catch(() => undefined);
      for (;;) {
        try {
          current = await make();
          return;
        } catch (err) {
          logger.warn({ err: (err as Error).message }, 'could not connect a new producer; trying again');
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })().finally(() => {
      renewing = null;
    });
    return renewing;
  };
  const guarded = <A extends unknown[], R>(call: (p: Producer, ...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    if (renewing) await renewing;
    const producer = current;
    try {
      return await call(producer, ...args);
    } catch (err) {
      if (refusesProducer(err)) await renew(producer);
      throw err;
    }
  };
  return {
    ...current,
    send: guarded((p, record: Parameters<Producer['send']>[0]) => p.send(record)),
    sendBatch: guarded((p, batch: Parameters<Producer['sendBatch']>[0]) => p.sendBatch(batch)),
    disconnect: async () => {
      if (renewing) await renewing;
      await current.disconnect();
    },
  };
}

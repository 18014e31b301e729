import { KafkaJSConnectionError, type Producer } from 'kafkajs';
import type { Logger } from '../logger';

// kafkajs's idempotent producer keeps its producer id and its sequence numbers for its whole life,
// and does not know what became of a request that failed without an answer (a timeout, a dropped
// connection, a leader that died): the broker may have written it. kafkajs then sends the next,
// different, messages of that partition under the same sequence number, and the broker, taking them
// for a repeat of what it wrote, acknowledges them without writing them: messages lost behind a
// success. After a leader change a new leader may also refuse the sequence for good ("The broker
// received an out of order sequence number"), and every later send fails the same way. So after any
// failed send the producer is replaced by a new one (a new producer id, sequences from zero). Nothing
// is lost or doubled by it: the failed send still rejects and its caller sends again (a chunk is
// replayed, a publish retried), and a message the old producer wrote after all is fenced by the
// `_id`s its consumers write under.
const REFUSED_PRODUCER = new Map<string, string>([
  ['OUT_OF_ORDER_SEQUENCE_NUMBER', 'The broker received an out of order sequence number'],
  ['UNKNOWN_PRODUCER_ID', 'could not locate the producer metadata'],
  ['INVALID_PRODUCER_EPOCH', 'old epoch'],
  ['INVALID_PRODUCER_ID_MAPPING', 'producer ID mapping is invalid'],
]);

// An error after which the broker refuses this producer id for good, however wrapped: a passing
// failure for the callers (driver-errors.ts), since the producer is replaced.
export function refusesProducer(err: unknown): boolean {
  for (let e = err as { type?: string; message?: string; cause?: unknown; originalError?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.type && REFUSED_PRODUCER.has(e.type)) return true;
    if (typeof e.message === 'string' && [...REFUSED_PRODUCER.values()].some((m) => e!.message!.includes(m))) return true;
    e = (e.cause ?? e.originalError) as typeof e;
  }
  return false;
}

// How long a send waits for a replacement under way before it fails (passingly): in a Kafka outage
// the replacement itself waits for the brokers, and callers must answer promptly meanwhile.
const RENEW_WAIT_MS = 1000;
const RECONNECT_PAUSE_MS = 1000;

// A producer whose sends go to the current one of `make`'s producers, replaced after any failed send.
export async function renewingProducer(make: () => Promise<Producer>, logger: Logger): Promise<Producer> {
  let current = await make();
  let renewing: Promise<void> | null = null;
  let stopped = false;
  const underWay = (): boolean => renewing !== null;
  const renew = (failed: Producer, err: unknown): void => {
    if (current !== failed || renewing) return; // replaced already, or being replaced
    logger.warn({ err: (err as Error).message }, 'a send failed: replacing the producer (a new producer id)');
    renewing = (async () => {
      await failed.disconnect().catch(() => undefined);
      while (!stopped) {
        try {
          current = await make();
          if (stopped) await current.disconnect();
          return;
        } catch (connectErr) {
          logger.warn({ err: (connectErr as Error).message }, 'could not connect a new producer; trying again');
          await new Promise((r) => setTimeout(r, RECONNECT_PAUSE_MS));
        }
      }
    })().finally(() => {
      renewing = null;
    });
  };
  const ready = async (): Promise<void> => {
    if (!renewing) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([renewing, new Promise((r) => { timer = setTimeout(r, RENEW_WAIT_MS); })]);
    clearTimeout(timer);
    if (underWay()) throw new KafkaJSConnectionError('the producer is being replaced after a failed send');
  };
  const guarded = <A extends unknown[], R>(call: (p: Producer, ...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    await ready();
    const producer = current;
    try {
      return await call(producer, ...args);
    } catch (err) {
      renew(producer, err);
      throw err;
    }
  };
  return {
    ...current,
    send: guarded((p, record: Parameters<Producer['send']>[0]) => p.send(record)),
    sendBatch: guarded((p, batch: Parameters<Producer['sendBatch']>[0]) => p.sendBatch(batch)),
    // A replacement still waiting for the brokers is given up.
    disconnect: async () => {
      stopped = true;
      if (renewing) await renewing;
      else await current.disconnect();
    },
  };
}

import { MongoError, MongoServerError } from 'mongodb';

// Server errors that say the request itself is wrong: trying it again gives the same answer.
const MONGO_REQUEST_ERRORS = new Set([
  2, // BadValue
  9, // FailedToParse
  14, // TypeMismatch
  52, // DollarPrefixedFieldName
  55, // InvalidDBRef
  10334, // BSONObjectTooLarge
  17419, // document too large
]);

// Errors whose cause may pass (a server restarting, a connection dropped, a timeout) are worth
// trying again; anything else (a bug, a document the store refuses) fails the same way every time.
// Errors carry their own verdict where they can (kafkajs' and ours have `retriable`).
export function isRetriable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const flagged = (err as { retriable?: unknown }).retriable;
  if (typeof flagged === 'boolean') return flagged;
  if (err instanceof MongoServerError) return !MONGO_REQUEST_ERRORS.has(Number(err.code));
  if (err instanceof MongoError) return true; // network, server selection, pool, topology
  const name = (err as { name?: unknown }).name;
  // ioredis: a command refused while the connection is down, or given up after its retries.
  if (name === 'MaxRetriesPerRequestError') return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && /Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|timed out|within \d+ ms/.test(message);
}

const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5000;

// Runs `work` until it succeeds, waiting longer each time it fails with a retriable error (a server
// restarting): for writes whose loss would lose work, where the caller holds a Kafka offset back
// meanwhile. A non-retriable error is thrown at once.
export async function untilDone<T>(
  work: () => Promise<T>, onRetry: (err: unknown, attempt: number) => void, retriable: (err: unknown) => boolean = isRetriable,
): Promise<T> {
  let backoff = FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!retriable(err)) throw err;
      onRetry(err, attempt);
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}

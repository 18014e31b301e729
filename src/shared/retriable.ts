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

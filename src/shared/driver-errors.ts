import { MongoError, MongoServerError } from 'mongodb';
import { DependencyError, ServiceError } from './errors';

// The one adapter from what the drivers throw (kafkajs, mongodb, ioredis, undici and Node's sockets)
// to the service's error tree: the retry helper reads `retriable`, the HTTP mapping answers a
// DependencyError with 503. An error no driver explains (a bug) gives null.
export function asServiceError(err: unknown): ServiceError | null {
  if (err instanceof ServiceError) return err;
  if (typeof err !== 'object' || err === null) return null;
  const retriable = driverRetriable(err);
  if (isOutage(err))
    return new DependencyError(driverCode(err), String((err as Error).message), { retriable, cause: err });
  if (retriable)
    return new ServiceError('transient', String((err as { message?: unknown }).message), { retriable, cause: err });
  return null;
}

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
// Errors carry their own verdict where they can (kafkajs' have `retriable`).
function driverRetriable(err: object): boolean {
  // A broker out of reach comes back; kafkajs flags it non-retriable once its own retries are spent.
  if (kafkaOutOfReach(err)) return true;
  const flagged = (err as { retriable?: unknown }).retriable;
  if (typeof flagged === 'boolean') return flagged;
  if (err instanceof MongoServerError) return !MONGO_REQUEST_ERRORS.has(Number(err.code));
  if (err instanceof MongoError) return true; // network, server selection, pool, topology
  const name = (err as { name?: unknown }).name;
  // ioredis: a command refused while the connection is down, or given up after its retries.
  if (name === 'MaxRetriesPerRequestError') return true;
  const message = (err as { message?: unknown }).message;
  return (
    typeof message === 'string' &&
    /Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|timed out|within \d+ ms/.test(message)
  );
}

// kafkajs gave up on a broker it could not reach (its retries spent, a connection refused or timed
// out), however deep in the causes that lies.
function kafkaOutOfReach(err: object): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { name } = e as { name?: unknown };
    if (
      name === 'KafkaJSConnectionError' ||
      name === 'KafkaJSRequestTimeoutError' ||
      name === 'KafkaJSConnectionClosedError'
    )
      return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

// Kafka, MongoDB or Redis out of reach: the same request may succeed in a moment.
const OUTAGE_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNonRetriableError',
  'MongoNetworkError',
  'MongoServerSelectionError',
  'MongoNetworkTimeoutError',
  'MongoTopologyClosedError',
  'MaxRetriesPerRequestError',
]);

function isOutage(err: object): err is Error {
  if (!(err instanceof Error)) return false;
  return (
    OUTAGE_ERRORS.has(err.name) ||
    OUTAGE_ERRORS.has(err.constructor.name) ||
    /^(Connection is closed|Stream isn't writeable|Command timed out)/.test(err.message)
  );
}

function driverCode(err: Error): string {
  if (/^KafkaJS/.test(err.name)) return 'kafka_unavailable';
  if (/^Mongo/.test(err.name)) return 'mongodb_unavailable';
  return 'redis_unavailable';
}

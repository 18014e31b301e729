import { KafkaJSConnectionError, KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded } from 'kafkajs';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { isRetriable } from '../../src/shared/retriable';

describe('isRetriable', () => {
  it('trusts an error that says so itself (kafkajs, ours)', () => {
    expect(isRetriable(Object.assign(new Error('x'), { retriable: true }))).toBe(true);
    expect(isRetriable(Object.assign(new Error('x'), { retriable: false }))).toBe(false);
  });

  it('retries a store that is away, not a request it refuses', () => {
    expect(isRetriable(new MongoNetworkError('connection reset'))).toBe(true);
    expect(isRetriable(new MongoServerError({ message: 'busy', code: 189 }))).toBe(true);
    expect(isRetriable(new MongoServerError({ message: 'too large', code: 10334 }))).toBe(false);
  });

  // A broker failover made the processor dead-letter healthy commands as poison: kafkajs flags these
  // non-retriable once its own retries are spent, and the chunk handler believed it.
  it('retries a broker failover that kafkajs gave up on: a broker out of reach', () => {
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:45641');
    expect(isRetriable(new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 5, retryTime: 3000 }))).toBe(true);
    expect(isRetriable(new KafkaJSNonRetriableError(new Error('Message too large')))).toBe(false);
  });

  it('does not retry a bug', () => {
    expect(isRetriable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isRetriable(undefined)).toBe(false);
  });

  it('retries a timeout and a dropped Redis connection', () => {
    expect(isRetriable(new Error('the intake command was not published within 5000 ms'))).toBe(true);
    expect(isRetriable(new Error('Connection is closed.'))).toBe(true);
  });
});

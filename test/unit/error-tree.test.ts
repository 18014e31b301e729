import { MongoNetworkError, MongoServerError } from 'mongodb';
import { ConfigError } from '../../src/shared/config';
import { asServiceError } from '../../src/shared/driver-errors';
import { ApiError, DependencyError, ServiceError } from '../../src/shared/errors';
import { toApiError } from '../../src/shared/http/fastify-errors';
import { DecodeError } from '../../src/shared/kafka/codec';
import { LeadContendedError } from '../../src/processor/lifecycle';
import { UsageError } from '../../src/manager/cli-commands';
import { CellsContendedError } from '../../src/shared/reports/cell-store';

const kafkajs = (name: string, retriable: boolean) => Object.assign(new Error('broker'), { name, retriable });

describe('one error tree', () => {
  it('roots every error of ours in ServiceError, with a code and a verdict on retrying', () => {
    const ours: [ServiceError, string, boolean][] = [
      [new LeadContendedError(['le-1']), 'lead_contended', true],
      [new CellsContendedError(['d-1']), 'cells_contended', true],
      [new UsageError('no command given'), 'usage', false],
      [new ConfigError('HASH_KEY', 'is required'), 'invalid_config', false],
      [new DecodeError('schema_violation', 'x'), 'undecodable', false],
      [new ApiError('rate_limit_exceeded', { seconds: 3 }), 'rate_limit_exceeded', true],
    ];
    for (const [err, code, retriable] of ours) {
      expect(err).toBeInstanceOf(ServiceError);
      expect({ code: err.code, retriable: err.retriable }).toEqual({ code, retriable });
    }
  });

  it('keeps ApiError an HTTP answer: status, headers and body', () => {
    const err = new ApiError('rate_limit_exceeded', { seconds: 3 }, { 'retry-after': '3' });
    expect(err.status).toBe(429);
    expect(err.headers).toEqual({ 'retry-after': '3' });
    expect(err.body()).toEqual({ error: 'rate_limit_exceeded', message: 'Try again in 3 seconds' });
  });

  it('brings driver errors in through one adapter: an outage is a DependencyError', () => {
    expect(asServiceError(new MongoNetworkError('reset'))).toBeInstanceOf(DependencyError);
    expect(asServiceError(kafkajs('KafkaJSConnectionError', true))).toMatchObject({
      code: 'kafka_unavailable',
      retriable: true,
    });
    expect(asServiceError(kafkajs('KafkaJSNonRetriableError', false))).toMatchObject({
      code: 'kafka_unavailable',
      retriable: false,
    });
    expect(asServiceError(new Error('Connection is closed.'))).toMatchObject({
      code: 'redis_unavailable',
      retriable: true,
    });
    expect(asServiceError(new MongoServerError({ message: 'busy', code: 189 }))).not.toBeInstanceOf(DependencyError);
    expect(asServiceError(new TypeError('x is undefined'))).toBeNull();
  });

  it('answers an outage 503 and a bug 500, from the same adapter', () => {
    expect(toApiError(new DependencyError('redis_unavailable', 'k', { retriable: true }), 1024)).toMatchObject({
      code: 'service_unavailable',
      status: 503,
      headers: { 'retry-after': '2' },
    });
    expect(toApiError(new MongoNetworkError('reset'), 1024).status).toBe(503);
    expect(toApiError(new MongoServerError({ message: 'busy', code: 189 }), 1024).status).toBe(500);
    expect(toApiError(new TypeError('x'), 1024)).toMatchObject({ code: 'internal_error', status: 500 });
  });
});

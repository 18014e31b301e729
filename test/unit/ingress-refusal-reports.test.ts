import type { Producer } from 'kafkajs';
import { Registry } from 'prom-client';
import type { TopicCodec } from '../../src/shared/kafka/codec';
import type { TopicNames } from '../../src/shared/kafka/topics';
import { createLogger } from '../../src/shared/logger';
import { RefusalReports, refusalOf } from '../../src/ingress/refusal-reports';

// The refusal reports wake only while a refusal waits: an ingress at rest runs no timer for them.
describe('RefusalReports', () => {
  // Only the clock's timers are faked: a tick or an immediate queued by the logger or the loader is not
  // a timer of the reports'.
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('runs no timer at rest, and sends what is queued together once its time comes', async () => {
    const sent: unknown[] = [];
    const producer = { sendBatch: async (batch: unknown) => sent.push(batch) } as unknown as Producer;
    const codec = { encode: async () => Buffer.from('x') } as unknown as TopicCodec;
    const reports = new RefusalReports({
      producer,
      codec,
      topics: { intakeRefusals: 'refusals' } as TopicNames,
      logger: createLogger('silent'),
      metrics: new Registry(),
    });
    expect(jest.getTimerCount()).toBe(0);
    reports.report(refusalOf('p1', 'duplicate', 'phone', {}, new Date()));
    reports.report(refusalOf('p1', 'validation_error', 'email', {}, new Date()));
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(250);
    expect(sent).toHaveLength(1);
    expect(jest.getTimerCount()).toBe(0);
    await reports.stop();
  });
});

import '../../src/shared/kafka/client'; // loads the request queue's patch, as every client does
import { timeoutCheckInMs } from '../../src/shared/kafka/request-queue-timer';

// A Kafka connection looks for timed-out requests only while one is in flight, at the earliest
// deadline: unpatched, kafkajs 2.2.4 checks every connection every 100 ms for its whole life.
const RequestQueue = require('kafkajs/src/network/requestQueue') as new (o: object) => {
  scheduleRequestTimeoutCheck(): void;
  push(r: object): void;
  fulfillRequest(r: { correlationId: number; payload: Buffer; size: number }): void;
  destroy(): void;
};
const logger = { debug: () => undefined, warn: () => undefined, error: () => undefined, info: () => undefined };

describe('request timeouts', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  const queue = () =>
    new RequestQueue({
      maxInFlightRequests: null,
      requestTimeout: 1000,
      enforceRequestTimeout: true,
      clientId: 'test',
      broker: 'b:9092',
      logger,
      isConnected: () => true,
    });
  const request = (correlationId: number, outcome: { error?: Error; answered?: boolean }) => ({
    entry: {
      correlationId,
      apiName: 'Fetch',
      apiKey: 1,
      apiVersion: 11,
      resolve: () => (outcome.answered = true),
      reject: (err: Error) => (outcome.error = err),
    },
    expectResponse: true,
    sendRequest: () => undefined,
  });

  it('runs no timer with nothing in flight, and times a silent request out at its deadline', async () => {
    const q = queue();
    q.scheduleRequestTimeoutCheck(); // the connection is up
    await jest.advanceTimersByTimeAsync(1000);
    expect(jest.getTimerCount()).toBe(0);

    const answered: { error?: Error; answered?: boolean } = {};
    q.push(request(1, answered));
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(answered.answered).toBe(true);

    const silent: { error?: Error } = {};
    q.push(request(2, silent));
    await jest.advanceTimersByTimeAsync(900);
    expect(silent.error).toBeUndefined();
    await jest.advanceTimersByTimeAsync(200);
    expect(silent.error?.name).toBe('KafkaJSRequestTimeoutError');
    expect(jest.getTimerCount()).toBe(0);
    q.destroy();
  });

  it('waits for the earliest deadline in flight', () => {
    const now = 1_000_000;
    expect(timeoutCheckInMs([], now)).toBeNull();
    expect(timeoutCheckInMs([{ sentAt: null, requestTimeout: 10 }], now)).toBeNull();
    expect(
      timeoutCheckInMs(
        [
          { sentAt: now - 100, requestTimeout: 30_000 },
          { sentAt: now - 10, requestTimeout: 5_000 },
        ],
        now,
      ),
    ).toBe(4_990);
    expect(timeoutCheckInMs([{ sentAt: now - 100, requestTimeout: 50 }], now)).toBe(0);
  });
});

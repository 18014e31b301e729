import { startWebhookSender, type WebhookSenderDeps } from '../../src/alerts/webhook-sender';
import type { PartnerDirectory } from '../../src/shared/partners/partner-directory';
import type { CallbackConfig } from '../../src/shared/config';
import { systemClock } from '../../src/shared/clock';
import { createLogger } from '../../src/shared/logger';
import { Counter, Registry } from 'prom-client';

// The sender of alert webhooks at rest reads its outbox once per poll, not once a second: a post
// queued in its process, or one falling due, wakes it at once.
describe('alert webhook sender', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('reads the outbox when a post is queued and when the next falls due, else once per poll', async () => {
    let reads = 0;
    let queued: () => void = () => undefined;
    let next: Date | null = null;
    const outbox = {
      due: async () => {
        reads++;
        return [];
      },
      nextDue: async () => next,
      onQueued: (listener: () => void) => {
        queued = listener;
      },
      urlOf: async () => null,
      claim: async () => false,
      settle: async () => undefined,
      prune: async () => undefined,
    } as unknown as WebhookSenderDeps['outbox'];
    const sender = startWebhookSender({
      outbox,
      posts: new Counter({ name: 'posts', help: 'posts', labelNames: ['outcome'], registers: [new Registry()] }),
      partners: {} as PartnerDirectory,
      callbacks: { retryDelaysS: [1, 2, 3, 4] } as unknown as CallbackConfig,
      serviceName: 'test',
      pollMs: 60_000,
      clock: systemClock,
      logger: createLogger('silent'),
    });
    try {
      await jest.advanceTimersByTimeAsync(10);
      const atStart = reads;
      await jest.advanceTimersByTimeAsync(30_000);
      expect(reads).toBe(atStart); // at rest: nothing until the poll

      next = new Date(Date.now() + 5_000); // a retry falls due in 5 s
      queued();
      await jest.advanceTimersByTimeAsync(10);
      expect(reads).toBe(atStart + 1);
      next = null;
      await jest.advanceTimersByTimeAsync(5_000);
      expect(reads).toBe(atStart + 2);
      await jest.advanceTimersByTimeAsync(59_000);
      expect(reads).toBe(atStart + 2);
      await jest.advanceTimersByTimeAsync(1_100);
      expect(reads).toBe(atStart + 3);
    } finally {
      await sender.stop();
    }
  });
});

import { Distribution, type DistributionDeps } from '../../src/processor/distribution';
import { systemClock } from '../../src/shared/clock';
import { createLogger } from '../../src/shared/logger';

// The distribution ticks every interval while a lead waits, and only every 30 s when nothing does:
// a lead set waiting (or a message parked, a lead handed out) in its process wakes it at once.
describe('distribution at rest', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('reads the store every 30 s at rest, at once when woken, and every interval while a lead waits', async () => {
    let ticks = 0;
    let waiting: { _id: string; partner_id: string; since: Date }[] = [];
    const published: unknown[] = [];
    const deps = {
      roster: {
        refresh: async () => {
          ticks++;
          return 0;
        },
        fits: () => false, // no agent fits: the lead keeps waiting
      },
      waiting: { list: async () => waiting },
      parked: { list: async () => [] },
      decisions: { dropExpired: async () => [] },
      claims: { dropExpired: async () => [] },
      intakeKeys: { dropExpired: async () => [] },
      intakeKeyHours: 48,
      longestDedupWindowMs: async () => 0,
      commands: { publish: async (c: unknown[]) => void published.push(...c) },
      retention: { run: async () => ({ days: [] }) },
      logger: createLogger('silent'),
    } as unknown as DistributionDeps;
    const distribution = new Distribution(deps);
    distribution.start(5_000, systemClock);
    try {
      await jest.advanceTimersByTimeAsync(10);
      expect(ticks).toBe(1);
      await jest.advanceTimersByTimeAsync(60_000);
      expect(ticks).toBe(3); // at rest: every 30 s, not every 5 s

      waiting = [{ _id: 'L1', partner_id: 'p1', since: new Date() }];
      distribution.woken();
      await jest.advanceTimersByTimeAsync(10);
      expect(ticks).toBe(4);
      await jest.advanceTimersByTimeAsync(10_000);
      expect(ticks).toBe(6); // a lead waits: every interval

      waiting = [];
      await jest.advanceTimersByTimeAsync(5_000);
      expect(ticks).toBe(7);
      await jest.advanceTimersByTimeAsync(25_000);
      expect(ticks).toBe(7);
      await jest.advanceTimersByTimeAsync(5_100);
      expect(ticks).toBe(8);
    } finally {
      await distribution.stop();
    }
  });
});

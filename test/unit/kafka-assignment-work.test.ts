import { AssignmentWork } from '../../src/shared/kafka/assignment-work';
import type { Lease } from '../../src/shared/kafka/membership-lease';

const later = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('assignment work', () => {
  it('stops new work at once, waits for the work under way and what it starts, then fences', async () => {
    const work = new AssignmentWork();
    const order: string[] = [];
    void work.track(
      later(20).then(() => {
        order.push('attempt');
        void work.track(later(20).then(() => order.push(`record (fenced: ${work.fenced})`)));
      }),
    );
    const closing = work.close(1000);
    expect(work.open).toBe(false);
    expect(work.fenced).toBe(false);
    expect(await closing).toBe(0);
    expect(order).toEqual(['attempt', 'record (fenced: false)']);
    expect(work.fenced).toBe(true);
  });

  it('fences work still under way at the deadline and counts it', async () => {
    const work = new AssignmentWork();
    void work.track(later(500));
    const started = Date.now();
    expect(await work.close(50)).toBe(1);
    expect(Date.now() - started).toBeLessThan(400);
    expect(work.fenced).toBe(true);
  });

  // A lease that holds until `untilMs` after it was made.
  const leaseFor = (untilMs: number): Lease => {
    const end = Date.now() + untilMs;
    return {
      get held() {
        return Date.now() < end;
      },
      remainingMs: () => Math.max(0, end - Date.now()),
    };
  };

  it('under a lease, waits for the work under way as long as the lease holds, however slow its record', async () => {
    const work = new AssignmentWork(leaseFor(1000));
    let recorded = false;
    void work.track(
      later(300).then(() => {
        recorded = !work.fenced;
      }),
    );
    expect(await work.close(50)).toBe(0);
    expect(recorded).toBe(true);
  });

  it('under a lease, fences the work still under way once the lease ran out', async () => {
    const work = new AssignmentWork(leaseFor(100));
    let recorded: boolean | null = null;
    void work.track(
      later(400).then(() => {
        recorded = !work.fenced;
      }),
    );
    const started = Date.now();
    expect(await work.close(5000)).toBe(1);
    expect(Date.now() - started).toBeLessThan(350);
    await later(400);
    expect(recorded).toBe(false);
  });
});

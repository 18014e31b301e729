import { AssignmentWork } from '../../src/shared/kafka/assignment-work';

const later = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('assignment work', () => {
  it('stops new work at once, waits for the work under way and what it starts, then fences', async () => {
    const work = new AssignmentWork();
    const order: string[] = [];
    void work.track(later(20).then(() => {
      order.push('attempt');
      void work.track(later(20).then(() => order.push(`record (fenced: ${work.fenced})`)));
    }));
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
});

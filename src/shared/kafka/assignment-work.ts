import { NO_LEASE, type Lease } from './membership-lease';

// The work a consumer started under one assignment of its partitions, for work that outlives its
// batch (an HTTP attempt recorded later). While the assignment is open, work starts and writes. At a
// hand-over it is closed in two steps: no new work starts (what was only queued is left to the next
// owner, its offsets uncommitted), and the work under way gets time to finish and write what it
// did; after that, anything it still tries to write is refused (`fenced`), because the next owner
// may already be doing the same work from the committed offsets. Work under a membership lease
// (membership-lease.ts) gets as long as the lease holds: until then the coordinator cannot have
// given the partitions away, and work cut off sooner would only be done again by the next owner
// (an attempt answered but not yet recorded on a slow store is a repeat to its partner). Work
// under no lease gets the deadline. Once the lease ran out the work is fenced at once: the member
// may have been evicted without knowing.

export type AssignmentPhase = 'open' | 'closing' | 'closed';

export class AssignmentWork {
  private phase: AssignmentPhase = 'open';
  private readonly underWay = new Set<Promise<unknown>>();

  constructor(private readonly lease: Lease = NO_LEASE) {}

  get open(): boolean {
    return this.phase === 'open' && this.lease.held;
  }

  // Writes of this assignment's work are refused from now on.
  get fenced(): boolean {
    return this.phase === 'closed' || !this.lease.held;
  }

  // Work the hand-over waits for.
  track<T>(work: Promise<T>): Promise<T> {
    this.underWay.add(work);
    const forget = () => this.underWay.delete(work);
    work.then(forget, forget);
    return work;
  }

  // Stops new work, waits until the work under way is done or its time is up (the lease, else
  // `deadlineMs`), then fences whatever is left. Resolves with the count of pieces of work cut off.
  async close(deadlineMs = Number.POSITIVE_INFINITY): Promise<number> {
    if (this.phase === 'open') this.phase = 'closing';
    const deadline = Date.now() + deadlineMs;
    const timeLeft = () => this.lease.remainingMs() ?? deadline - Date.now();
    // Work under way may start more (a record after its attempt): wait until none is left.
    while (this.underWay.size > 0 && timeLeft() > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((r) => {
        timer = setTimeout(r, timeLeft());
      });
      await Promise.race([Promise.allSettled([...this.underWay]), timeout]);
      clearTimeout(timer);
    }
    this.phase = 'closed';
    return this.underWay.size;
  }
}

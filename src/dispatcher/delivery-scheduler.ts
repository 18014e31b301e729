// Runs delivery attempts in the background with two caps: a global one, and one per partner so a
// partner that hangs can hold at most its own share of the slots. Partners take turns, so a long
// queue for one never starves another. The queue is memory only and bounded per partner: a job
// refused here (already pending, partner queue full, stopping) is the caller's to send elsewhere
// (the retry path) or to leave uncommitted. A caller that bounds its own jobs (a retry tier's
// uncommitted tasks) may instead have them wait for room (submitWhenRoom), ahead of later submits;
// one that feeds a partner from a backlog of its own (held leads released) waits for room first
// (untilRoom), so the backlog goes at the partner's pace.
export interface DeliveryJob {
  deliveryId: string;
  partnerId: string;
  // True once the job's work was handed over to another owner: dropFenced() drops it unstarted.
  fenced?(): boolean;
  run(): Promise<void>;
}

export interface SchedulerLimits {
  concurrency: number;
  perPartnerConcurrency: number;
  maxQueuedPerPartner: number;
}

interface PartnerLane {
  queue: DeliveryJob[];
  waiting: DeliveryJob[]; // beyond the queue, taken into it in order as it shrinks
  running: number;
}

export class DeliveryScheduler {
  private readonly lanes = new Map<string, PartnerLane>();
  private readonly pending = new Set<string>();
  private readonly waiters = new Map<string, (() => void)[]>(); // settled(), by delivery id
  private readonly roomWaiters = new Map<string, (() => void)[]>(); // untilRoom(), by partner
  private readonly inFlight = new Set<Promise<void>>();
  private running = 0;
  private draining = false;

  constructor(
    private readonly limits: SchedulerLimits,
    private readonly onError: (err: unknown, job: DeliveryJob) => void,
  ) {}

  get stopping(): boolean {
    return this.draining;
  }

  submit(job: DeliveryJob): boolean {
    return this.enqueue(job, false);
  }

  // The same, but a job beyond the partner's queue waits for room instead of being refused.
  submitWhenRoom(job: DeliveryJob): boolean {
    return this.enqueue(job, true);
  }

  private enqueue(job: DeliveryJob, wait: boolean): boolean {
    if (this.draining || this.pending.has(job.deliveryId)) return false;
    const lane = this.lanes.get(job.partnerId) ?? { queue: [], waiting: [], running: 0 };
    const full = lane.queue.length >= this.limits.maxQueuedPerPartner || lane.waiting.length > 0;
    if (full && !wait) return false;
    (full ? lane.waiting : lane.queue).push(job);
    this.refill(lane);
    this.lanes.set(job.partnerId, lane);
    this.pending.add(job.deliveryId);
    this.pump();
    return true;
  }

  // How many more jobs the partner's queue takes now.
  room(partnerId: string): number {
    const lane = this.lanes.get(partnerId);
    if (!lane) return this.limits.maxQueuedPerPartner;
    return lane.waiting.length > 0 ? 0 : Math.max(0, this.limits.maxQueuedPerPartner - lane.queue.length);
  }

  // Resolves once the partner's queue has room (at once if it has), or at a hand-over or a drain
  // (the caller checks whether its work may still go).
  untilRoom(partnerId: string): Promise<void> {
    if (this.room(partnerId) > 0) return Promise.resolve();
    return new Promise<void>((resolve) =>
      this.roomWaiters.set(partnerId, [...(this.roomWaiters.get(partnerId) ?? []), resolve]),
    );
  }

  // Whether a job of `deliveryId` is queued or running.
  isPending(deliveryId: string): boolean {
    return this.pending.has(deliveryId);
  }

  // When the job of `deliveryId` now queued or running (an earlier owner's, or its retry task's) has
  // left; null if there is none.
  settled(deliveryId: string): Promise<void> | null {
    if (!this.pending.has(deliveryId)) return null;
    return new Promise<void>((resolve) =>
      this.waiters.set(deliveryId, [...(this.waiters.get(deliveryId) ?? []), resolve]),
    );
  }

  // Drops what has not started (its offset or task is not committed) and waits for what has.
  async drain(): Promise<void> {
    this.draining = true;
    for (const lane of this.lanes.values()) {
      for (const job of [...lane.queue, ...lane.waiting]) this.forget(job.deliveryId);
      lane.queue.length = 0;
      lane.waiting.length = 0;
    }
    this.wakeRoom(true);
    await Promise.allSettled([...this.inFlight]);
  }

  // Drops the queued jobs of work handed over at a rebalance (not started: their offsets or tasks
  // are not committed, the next owner runs them).
  dropFenced(): void {
    for (const lane of this.lanes.values()) {
      for (const jobs of [lane.queue, lane.waiting]) {
        const fenced = jobs.filter((job) => job.fenced?.());
        for (const job of fenced) {
          this.forget(job.deliveryId);
          jobs.splice(jobs.indexOf(job), 1);
        }
      }
      this.refill(lane);
    }
    this.wakeRoom(true);
  }

  private pump(): void {
    let started = true;
    while (started && this.running < this.limits.concurrency) {
      started = false;
      for (const partnerId of [...this.lanes.keys()]) {
        if (this.running >= this.limits.concurrency) break;
        const lane = this.lanes.get(partnerId);
        const job = lane && lane.running < this.limits.perPartnerConcurrency ? lane.queue.shift() : undefined;
        if (!lane || !job) continue;
        this.refill(lane);
        started = true;
        this.start(job, lane);
        // Round robin: the partner that just got a slot goes to the back of the line.
        this.lanes.delete(partnerId);
        this.lanes.set(partnerId, lane);
      }
    }
    this.wakeRoom(false);
  }

  // Who waits for room in a partner's queue that has some now (or all of them).
  private wakeRoom(all: boolean): void {
    for (const [partnerId, resolvers] of this.roomWaiters) {
      if (!all && this.room(partnerId) === 0) continue;
      this.roomWaiters.delete(partnerId);
      for (const resolve of resolvers) resolve();
    }
  }

  private start(job: DeliveryJob, lane: PartnerLane): void {
    this.running++;
    lane.running++;
    const done = job
      .run()
      .catch((err: unknown) => this.onError(err, job))
      .finally(() => {
        this.running--;
        lane.running--;
        this.forget(job.deliveryId);
        this.inFlight.delete(done);
        // The partner that just had a slot goes behind the others, and leaves once it has nothing left.
        if (this.lanes.get(job.partnerId) === lane) {
          this.lanes.delete(job.partnerId);
          if (lane.running > 0 || lane.queue.length > 0 || lane.waiting.length > 0) this.lanes.set(job.partnerId, lane);
        }
        if (!this.draining) this.pump();
      });
    this.inFlight.add(done);
  }

  private refill(lane: PartnerLane): void {
    while (lane.queue.length < this.limits.maxQueuedPerPartner && lane.waiting.length > 0)
      lane.queue.push(lane.waiting.shift() as DeliveryJob);
  }

  private forget(deliveryId: string): void {
    this.pending.delete(deliveryId);
    for (const resolve of this.waiters.get(deliveryId) ?? []) resolve();
    this.waiters.delete(deliveryId);
  }
}

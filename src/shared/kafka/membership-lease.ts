import { performance } from 'node:perf_hooks';

// What a member of a consumer group may take for granted about its membership: that the
// coordinator has not given its partitions away. The coordinator evicts a member no sooner than a
// session after the last heartbeat it received, and every heartbeat it received was sent after the
// member started it; so the member holds its partitions for sure only until `sessionTimeout` after
// it started its last heartbeat that was answered (or its last join). A member that was frozen (a
// GC pause, a throttled container, SIGSTOP) or cut off from Kafka cannot know it was evicted; what
// it can know is that this lease ran out. It then starts nothing and writes nothing more for its
// assignment, until it has joined the group again (a forced rejoin when the coordinator, asked
// again, still counts it a member). `margin` is kept for the time between a check and the write it
// allows, and for clocks that run a little apart.
export interface Lease {
  // False once the lease ran out; stays false until the next join, even if a heartbeat then passes.
  readonly held: boolean;
  // How long it still holds; null for work under no lease (bounded by a deadline of its own).
  remainingMs(): number | null;
}

export const NO_LEASE: Lease = { held: true, remainingMs: () => null };

// The share of the session a member acts on after its last answered heartbeat.
export const LEASE_SHARE = 0.8;

// A member that has not rejoined within the rebalance timeout of the rebalance's start is dropped
// from the group. kafkajs's default is 60 s; never less than the session, so that a member handing
// over within its lease is never dropped (createConsumer sets it on every consumer).
export const rebalanceTimeoutFor = (sessionTimeoutMs: number): number => Math.max(60_000, sessionTimeoutMs);

export class MembershipLease implements Lease {
  private confirmedAt = Number.NEGATIVE_INFINITY; // performance.now() when the last answered request was sent
  private calmAt = Number.NEGATIVE_INFINITY; // when the last heartbeat answered with no rebalance under way was sent
  private lapsed = true; // no join yet
  private joinSentAt: number | null = null;

  constructor(
    private readonly leaseMs: number,
    private readonly rebalanceTimeoutMs: number,
  ) {}

  static forSession(sessionTimeoutMs: number): MembershipLease {
    return new MembershipLease(Math.floor(sessionTimeoutMs * LEASE_SHARE), rebalanceTimeoutFor(sessionTimeoutMs));
  }

  // How often a member handing over heartbeats (kafkajs's interval: a tenth of the session).
  get beatEveryMs(): number {
    return this.leaseMs / (LEASE_SHARE * 10);
  }

  get held(): boolean {
    if (this.lapsed) return false;
    if (performance.now() < this.confirmedAt + this.leaseMs) return true;
    this.lapsed = true;
    return false;
  }

  remainingMs(): number {
    return this.held ? this.confirmedAt + this.leaseMs - performance.now() : 0;
  }

  // A join request is about to be sent (after the hand-over).
  joining(): void {
    this.joinSentAt = performance.now();
  }

  // The join (and sync) that started at joining() succeeded: a fresh assignment, a fresh lease.
  joined(): void {
    this.confirmedAt = this.joinSentAt ?? performance.now();
    this.calmAt = this.confirmedAt;
    this.joinSentAt = null;
    this.lapsed = false;
  }

  // A heartbeat sent at `sentAt` was answered: the member was still in the group then.
  confirmed(sentAt: number): void {
    if (this.lapsed) return;
    this.confirmedAt = Math.max(this.confirmedAt, sentAt);
    this.calmAt = Math.max(this.calmAt, sentAt);
  }

  // A heartbeat sent at `sentAt` during a hand-over was answered REBALANCE_IN_PROGRESS: the
  // coordinator still counted the member in and renewed its session, but drops it if it has not
  // rejoined within the rebalance timeout of the rebalance's start, which came after the last calm
  // answer's heartbeat was sent. The lease moves no further than that allows.
  confirmedRebalancing(sentAt: number): void {
    if (this.lapsed) return;
    const latest = this.calmAt + this.rebalanceTimeoutMs - this.leaseMs;
    this.confirmedAt = Math.max(this.confirmedAt, Math.min(sentAt, latest));
  }
}

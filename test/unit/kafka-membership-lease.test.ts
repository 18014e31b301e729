import { performance } from 'node:perf_hooks';
import { AssignmentWork } from '../../src/shared/kafka/assignment-work';
import { MembershipLease } from '../../src/shared/kafka/membership-lease';

// The lease a consumer acts on: from the moment its last answered heartbeat (or its join) was sent.
describe('MembershipLease', () => {
  let now = 1000;
  beforeEach(() => {
    now = 1000;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('is not held before the first join, and is held for 80% of the session from the join request', () => {
    const lease = MembershipLease.forSession(10_000);
    expect(lease.held).toBe(false);
    lease.joining();
    now += 500; // the join took half a second: the lease counts from its request
    lease.joined();
    expect(lease.held).toBe(true);
    now = 1000 + 7999;
    expect(lease.held).toBe(true);
    now = 1000 + 8000;
    expect(lease.held).toBe(false);
  });

  it('during a hand-over, a heartbeat answered REBALANCE_IN_PROGRESS renews it, no further than the rebalance timeout allows', () => {
    const lease = MembershipLease.forSession(10_000); // lease 8 s; rebalance timeout 60 s
    lease.joining();
    lease.joined(); // at 1000: calm
    now = 1000 + 7000;
    lease.confirmedRebalancing(now);
    now = 1000 + 14_000;
    expect(lease.held).toBe(true); // renewed from 8000: held until 16000
    // The rebalance began after the last calm heartbeat (at 1000): dropped no sooner than 61000,
    // so the lease may reach 61000 and no further, however late the answered heartbeats.
    now = 1000 + 55_000;
    lease.confirmedRebalancing(1000 + 14_000);
    lease.confirmedRebalancing(now);
    now = 1000 + 59_999;
    expect(lease.held).toBe(true);
    now = 1000 + 60_000;
    expect(lease.held).toBe(false);
  });

  it('is renewed from the moment an answered heartbeat was sent, never from its answer', () => {
    const lease = MembershipLease.forSession(10_000);
    lease.joining();
    lease.joined();
    const sentAt = now + 5000;
    now = sentAt + 30_000; // frozen while the heartbeat was under way: its answer comes late
    lease.confirmed(sentAt);
    expect(lease.held).toBe(false);
  });

  it('stays lapsed once it ran out, whatever heartbeat passes later, until the member joins again', () => {
    const lease = MembershipLease.forSession(10_000);
    lease.joining();
    lease.joined();
    now += 9000;
    expect(lease.held).toBe(false);
    lease.confirmed(now);
    expect(lease.held).toBe(false);
    lease.joining();
    lease.joined();
    expect(lease.held).toBe(true);
  });

  it('fences the work of an assignment at once when it runs out', () => {
    const lease = MembershipLease.forSession(10_000);
    lease.joining();
    lease.joined();
    const work = new AssignmentWork(lease);
    expect([work.open, work.fenced]).toEqual([true, false]);
    now += 8000;
    expect([work.open, work.fenced]).toEqual([false, true]);
  });
});

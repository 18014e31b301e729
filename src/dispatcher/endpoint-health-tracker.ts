import type { EndpointHealthReport } from '../shared/schemas';
import type { AttemptVerdict } from './retry-policy';

interface Seen {
  ok: number;
  failed: number;
  trailingFailures: number;
  trailingSince: number | null;
  lastSuccess: number | null;
  lastFailure: number | null;
  goneAt: number | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

// What an unsent report saw, followed by what was seen since: a success in the newer part ends the
// older streak (and clears gone), as record() would have.
function followedBy(older: Seen, newer: Seen | undefined): Seen {
  if (!newer) return older;
  const succeeded = newer.lastSuccess !== null;
  return {
    ok: older.ok + newer.ok,
    failed: older.failed + newer.failed,
    trailingFailures: succeeded ? newer.trailingFailures : older.trailingFailures + newer.trailingFailures,
    trailingSince: succeeded ? newer.trailingSince : (older.trailingSince ?? newer.trailingSince),
    lastSuccess: newer.lastSuccess ?? older.lastSuccess,
    lastFailure: newer.lastFailure ?? older.lastFailure,
    goneAt: succeeded ? newer.goneAt : (newer.goneAt ?? older.goneAt),
  };
}

// What this dispatcher saw of each partner's endpoint since its last report, in memory only: an
// attempt costs a few additions, never a database call. Reports go out every ENDPOINT_HEALTH_REPORT_MS
// to the endpoint's owner (endpoint-keeper.ts), which adds them up.
export class EndpointHealthTracker {
  private seen = new Map<string, Seen>();
  private lastHeld = new Map<string, Record<string, number>>();

  // 410 Gone is a failure that also flags the endpoint as gone, until a success.
  record(partnerId: string, verdict: AttemptVerdict, httpStatus: number | null, atMs: number): void {
    if (verdict === 'unsendable') return; // our payload, not their endpoint
    const s = this.seen.get(partnerId) ?? {
      ok: 0,
      failed: 0,
      trailingFailures: 0,
      trailingSince: null,
      lastSuccess: null,
      lastFailure: null,
      goneAt: null,
    };
    if (verdict === 'delivered') {
      s.ok++;
      s.trailingFailures = 0;
      s.trailingSince = null;
      s.lastSuccess = atMs;
      s.goneAt = null;
    } else {
      s.failed++;
      s.trailingFailures++;
      s.trailingSince ??= atMs;
      s.lastFailure = atMs;
      if (httpStatus === 410) s.goneAt = atMs;
    }
    this.seen.set(partnerId, s);
  }

  // One report per partner seen since the last call, or whose held count changed (`held`: this
  // dispatcher's held deliveries by partner and lead partition); the counts start again.
  drain(held: ReadonlyMap<string, Record<string, number>>): Map<string, EndpointHealthReport> {
    const reports = new Map<string, EndpointHealthReport>();
    const partners = new Set([...this.seen.keys(), ...held.keys(), ...this.lastHeld.keys()]);
    for (const partnerId of partners) {
      const now = held.get(partnerId) ?? {};
      const before = this.lastHeld.get(partnerId) ?? {};
      const heldChanges: Record<string, number> = {};
      for (const p of new Set([...Object.keys(now), ...Object.keys(before)])) {
        if ((now[p] ?? 0) !== (before[p] ?? -1)) heldChanges[p] = now[p] ?? 0;
      }
      const s = this.seen.get(partnerId);
      if (!s && Object.keys(heldChanges).length === 0) continue;
      reports.set(partnerId, {
        ok: s?.ok ?? 0,
        failed: s?.failed ?? 0,
        trailing_failures: s?.trailingFailures ?? 0,
        trailing_since: iso(s?.trailingSince ?? null),
        last_success_at: iso(s?.lastSuccess ?? null),
        last_failure_at: iso(s?.lastFailure ?? null),
        gone_at: iso(s?.goneAt ?? null),
        held: heldChanges,
      });
      if (Object.keys(now).length > 0) this.lastHeld.set(partnerId, { ...now });
      else this.lastHeld.delete(partnerId);
    }
    this.seen = new Map();
    return reports;
  }

  // Drains the reports and sends them. If they do not reach the keeper, their counts go back under
  // what was seen meanwhile and the held counts are reported again: the next report carries them.
  async report(
    held: ReadonlyMap<string, Record<string, number>>,
    send: (reports: Map<string, EndpointHealthReport>) => Promise<void>,
  ): Promise<void> {
    const seen = this.seen;
    const lastHeld = new Map(this.lastHeld);
    try {
      await send(this.drain(held));
    } catch (err) {
      for (const [partnerId, older] of seen) this.seen.set(partnerId, followedBy(older, this.seen.get(partnerId)));
      this.lastHeld = lastHeld;
      throw err;
    }
  }
}

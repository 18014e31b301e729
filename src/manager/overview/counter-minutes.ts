// Per-minute counts from cumulative counter snapshots, for the console's overview charts. Pure:
// snapshots and the clock come in, buckets go out.

// One reading of a counter, summed by one label (outcome): { accepted: 12, duplicate: 3 }.
export interface CounterSnapshot {
  at: number; // ms since the epoch
  totals: Readonly<Record<string, number>>;
}

export interface MinuteBucket {
  start: string;
  end: string;
  counts: Record<string, number>;
}

// What happened between each snapshot and the next, and between the last one and `now` (the minute
// in progress), inside the window. A total that went down means the process restarted: its new
// value is all that happened since.
export function minuteBuckets(snapshots: readonly CounterSnapshot[], now: CounterSnapshot, windowMs: number): MinuteBucket[] {
  const points = [...snapshots, now];
  const buckets: MinuteBucket[] = [];
  for (let i = 1; i < points.length; i++) {
    const before = points[i - 1]!;
    const after = points[i]!;
    if (after.at <= before.at || after.at <= now.at - windowMs) continue;
    buckets.push({ start: new Date(before.at).toISOString(), end: new Date(after.at).toISOString(), counts: increase(before.totals, after.totals) });
  }
  return buckets;
}

function increase(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    const previous = before[key] ?? 0;
    const delta = value >= previous ? value - previous : value;
    if (delta > 0) counts[key] = delta;
  }
  return counts;
}

// Keeps the snapshots of the last window (plus the one the window starts from), oldest first.
export function keepWindow(snapshots: readonly CounterSnapshot[], now: number, windowMs: number): CounterSnapshot[] {
  const inside = snapshots.findIndex((s) => s.at > now - windowMs);
  if (inside === -1) return snapshots.slice(-1);
  return snapshots.slice(Math.max(0, inside - 1));
}

import { deliveryId } from '../../src/shared/ids';
import type { Arrival } from '../receiver';
import type { Table } from './context';
import type { CpuWindow } from './proc';
import type { Summary } from './stats';

// How late each retry attempt reached the partner, against the due time the dispatcher wrote on
// its retry task (read by a probe consumer, by delivery id and attempt).
export function retryLateness(input: {
  arrivals: readonly Arrival[];
  retryPartners: readonly string[]; // partner ids, routed at /retry0, /retry1, ...
  due: ReadonlyMap<string, number>; // `${deliveryId}#${attempt}` -> due time (epoch ms)
  failFirst: number;
  delaysS: readonly number[];
}): {
  lateness: number[];
  latenessByAttempt: Record<string, number[]>;
  missingDue: number;
  repeated: number;
  incomplete: number;
} {
  const { arrivals, retryPartners, due, failFirst, delaysS } = input;
  // Arrivals per delivery, in time order. In a clean run a delivery gets exactly failFirst + 1
  // attempts and the j-th arrival is attempt j, whose due time the probe read. A delivery with
  // more arrivals had an attempt sent again (a lost lease or a sweep after a database error): its
  // arrivals cannot be matched to attempts one to one, so it is counted apart, not measured.
  const byPath = new Map(retryPartners.map((id, i) => [`/retry${i}`, id]));
  const perDelivery = new Map<string, { pid: string; lead: string; times: number[] }>();
  for (const a of arrivals) {
    const pid = byPath.get(a.path);
    if (!pid) continue;
    const key = `${a.path}|${a.lead}`;
    const entry = perDelivery.get(key) ?? { pid, lead: a.lead, times: [] };
    entry.times.push(a.t);
    perDelivery.set(key, entry);
  }
  const lateness: number[] = [];
  const latenessByAttempt: Record<string, number[]> = {};
  let missingDue = 0;
  let repeated = 0;
  let incomplete = 0;
  for (const { pid, lead, times } of perDelivery.values()) {
    times.sort((x, y) => x - y);
    if (times.length > failFirst + 1) {
      repeated++;
      continue;
    }
    if (times.length < failFirst + 1) incomplete++;
    for (let j = 2; j <= times.length; j++) {
      const d = due.get(`${deliveryId(`${lead}:0`, pid)}#${j}`);
      if (d === undefined) {
        missingDue++;
        continue;
      }
      const late = (times[j - 1] as number) - d;
      lateness.push(late);
      (latenessByAttempt[`attempt ${j} (+${delaysS[j - 2]} s)`] ??= []).push(late);
    }
  }
  return { lateness, latenessByAttempt, missingDue, repeated, incomplete };
}

export function retriesTable(
  title: string,
  retries: {
    retryAttemptsMeasured: number;
    early: number;
    overOneSecondLate: number;
    latenessMs: Summary;
    latenessByAttemptMs: Record<string, Summary>;
  },
  retryCpu: CpuWindow,
): Table {
  return {
    title,
    columns: [
      'retry attempts',
      'early',
      '>1 s late',
      'min ms',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'max ms',
      'dispatcher cpu%',
      'mongo-wire cpu%',
      'others cpu%',
    ],
    rows: [
      [
        retries.retryAttemptsMeasured,
        retries.early,
        retries.overOneSecondLate,
        retries.latenessMs.min,
        retries.latenessMs.p50,
        retries.latenessMs.p95,
        retries.latenessMs.p99,
        retries.latenessMs.max,
        retryCpu.perProcess.dispatcher ?? null,
        retryCpu.perProcess['mongo-wire'] ?? null,
        retryCpu.othersPct,
      ],
      ...Object.entries(retries.latenessByAttemptMs).map(([k, s]) => [
        `  ${k}`,
        null,
        null,
        s.min,
        s.p50,
        s.p95,
        s.p99,
        s.max,
        null,
        null,
        null,
      ]),
    ],
    note: 'lateness = arrival at the receiver - due time on the retry task (x-due-at); negative would be early',
  };
}

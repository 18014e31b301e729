import type { CounterUse } from '../processor/commands';
import { addCounts, type Counts } from '../shared/reports/cell-counts';
import type { Cells } from '../shared/reports/cell-store';
import type { Alert } from './alert-kinds';
import type { SummaryDue } from './summary-days';

// The alerts the worker finds by reading state now and then rather than by an event: caps filling,
// a grace ending, a finished digest period, a finished day. Pure: the clock and the reads are inputs.

// A cap at its warning share or full: one alert per cap, the fuller one only.
export function capAlerts(partnerId: string, uses: readonly CounterUse[], warnPercent: number): Alert[] {
  return uses.flatMap((u): Alert[] => {
    const base = { partnerId, scope: u.scope, country: u.country, limit: u.limit, used: u.used, counter: u.counter };
    if (u.used >= u.limit) return [{ kind: 'cap_reached', ...base }];
    if (u.used * 100 >= u.limit * warnPercent) return [{ kind: 'cap_warning', ...base }];
    return [];
  });
}

// A rotation's grace that ends within the notice.
export function graceAlert(partnerId: string, until: Date | null | undefined, nowMs: number, noticeMs: number) {
  if (!until) return [];
  const left = until.getTime() - nowMs;
  return left > 0 && left <= noticeMs ? [{ kind: 'secret_grace_ending' as const, partnerId, until }] : [];
}

export const periodStart = (atMs: number, periodMs: number): number => Math.floor(atMs / periodMs) * periodMs;

// The digests of periods that are over: dead deliveries counted per partner and period.
export function digestAlerts(dead: readonly { partner_id: string; period: number }[], periodMs: number): Alert[] {
  const counts = new Map<string, { partnerId: string; period: number; count: number }>();
  for (const d of dead) {
    const key = `${d.partner_id}|${d.period}`;
    const c = counts.get(key) ?? { partnerId: d.partner_id, period: d.period, count: 0 };
    c.count++;
    counts.set(key, c);
  }
  return [...counts.values()].map((c) => ({
    kind: 'deliveries_dead',
    partnerId: c.partnerId,
    from: new Date(c.period),
    to: new Date(c.period + periodMs),
    count: c.count,
  }));
}

// A day's summary from the cells of the partner's day (report_cells), added up, for whom it is due
// (summary-days.ts decides).
export function summaryAlert(partnerId: string, due: SummaryDue, cells: Cells): Alert {
  const totals: Counts = {};
  for (const counts of Object.values(cells)) addCounts(totals, counts);
  const n = (k: string) => totals[k] ?? 0;
  const rejected = Object.keys(totals)
    .filter((k) => k.startsWith('rejected_'))
    .reduce((sum, k) => sum + n(k), 0);
  return {
    kind: 'daily_summary',
    partnerId,
    day: due.day,
    counts: { received: n('received'), accepted: n('accepted'), rejected, ftd: n('ftd') },
    audience: { accountIds: due.accountIds, webhook: due.webhook },
  };
}

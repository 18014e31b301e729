import { endpointOwner, type DeliveryKind } from '../shared/delivery-kind';
import type { EndpointHealthDoc } from '../shared/mongo/documents';
import type { EndpointHealthReport } from '../shared/schemas';

// The pure side of endpoint health: how the reports of every dispatcher add up in one
// partner's record, when the endpoint is to be paused, and what a manager sees of it.
const HOUR_MS = 3_600_000;
const HOURS_KEPT = 24;

export interface PauseRule {
  pauseAfterMs: number; // every attempt failing for this long...
  minFailures: number; // ...and at least this many in a row
}

export function emptyHealth(partnerId: string, now: Date): EndpointHealthDoc {
  return {
    _id: partnerId,
    state: 'active',
    paused_at: null,
    resumed_at: null,
    consecutive_failures: 0,
    failing_since: null,
    last_success_at: null,
    last_failure_at: null,
    gone_at: null,
    hours: [],
    held: {},
    updated_at: now,
  };
}

const date = (iso: string | null): Date | null => (iso === null ? null : new Date(iso));
const later = (a: Date | null, b: Date | null): Date | null => (!a ? b : !b ? a : a >= b ? a : b);

// Reports from several dispatchers interleave: a report whose success is the newest known resets
// the streak to its own trailing failures; any other adds its trailing failures to the streak.
export function applyReport(doc: EndpointHealthDoc, report: EndpointHealthReport, at: Date): EndpointHealthDoc {
  const next: EndpointHealthDoc = { ...doc, held: { ...doc.held, ...report.held }, updated_at: at };
  const success = date(report.last_success_at);
  const trailingSince = date(report.trailing_since);
  if (success && (!doc.last_success_at || success >= doc.last_success_at)) {
    next.consecutive_failures = report.trailing_failures;
    next.failing_since = trailingSince;
  } else if (report.trailing_failures > 0) {
    next.consecutive_failures = doc.consecutive_failures + report.trailing_failures;
    next.failing_since =
      doc.failing_since && trailingSince && doc.failing_since < trailingSince
        ? doc.failing_since
        : (doc.failing_since ?? trailingSince);
  }
  next.last_success_at = later(doc.last_success_at, success);
  next.last_failure_at = later(doc.last_failure_at, date(report.last_failure_at));
  const gone = later(doc.gone_at, date(report.gone_at));
  next.gone_at = gone && next.last_success_at && next.last_success_at > gone ? null : gone;
  next.hours = addToHours(doc.hours, Math.floor(at.getTime() / HOUR_MS), report.ok, report.failed);
  return next;
}

function addToHours(
  hours: EndpointHealthDoc['hours'],
  hour: number,
  ok: number,
  failed: number,
): EndpointHealthDoc['hours'] {
  const kept = hours.filter((h) => h.hour > hour - HOURS_KEPT).map((h) => ({ ...h }));
  const bucket = kept.find((h) => h.hour === hour);
  if (bucket) {
    bucket.ok += ok;
    bucket.failed += failed;
  } else if (ok + failed > 0) kept.push({ hour, ok, failed });
  return kept;
}

// Sustained failure: the streak of failures spans pauseAfterMs, with no success in between.
export function shouldPause(doc: EndpointHealthDoc, rule: PauseRule): boolean {
  if (doc.state !== 'active' || doc.consecutive_failures < rule.minFailures) return false;
  if (!doc.failing_since || !doc.last_failure_at) return false;
  return doc.last_failure_at.getTime() - doc.failing_since.getTime() >= rule.pauseAfterMs;
}

export function paused(doc: EndpointHealthDoc, at: Date): EndpointHealthDoc {
  return { ...doc, state: 'paused', paused_at: at, updated_at: at };
}

// A manager resumes: the streak starts again, so the endpoint is paused again only after another
// full period of failures.
export function resumed(doc: EndpointHealthDoc, at: Date): EndpointHealthDoc {
  return { ...doc, state: 'active', resumed_at: at, consecutive_failures: 0, failing_since: null, updated_at: at };
}

export interface EndpointHealthView {
  kind: DeliveryKind;
  affiliate_id: string;
  state: 'active' | 'paused';
  success_rate: number | null; // delivered / attempted over the last 24 hours; null without attempts
  attempts_24h: number;
  consecutive_failures: number;
  failing_since: Date | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  gone: boolean;
  held: number;
  paused_at: Date | null;
  resumed_at: Date | null;
}

export function healthView(doc: EndpointHealthDoc, nowMs: number): EndpointHealthView {
  const hour = Math.floor(nowMs / HOUR_MS);
  const recent = doc.hours.filter((h) => h.hour > hour - HOURS_KEPT);
  const ok = recent.reduce((n, h) => n + h.ok, 0);
  const attempts = recent.reduce((n, h) => n + h.ok + h.failed, 0);
  const { partnerId, kind } = endpointOwner(doc._id);
  return {
    affiliate_id: partnerId,
    kind,
    state: doc.state,
    success_rate: attempts === 0 ? null : Math.round((ok / attempts) * 10000) / 10000,
    attempts_24h: attempts,
    consecutive_failures: doc.consecutive_failures,
    failing_since: doc.failing_since,
    last_success_at: doc.last_success_at,
    last_failure_at: doc.last_failure_at,
    gone: doc.gone_at !== null,
    held: Object.values(doc.held).reduce((n, v) => n + v, 0),
    paused_at: doc.paused_at,
    resumed_at: doc.resumed_at,
  };
}
